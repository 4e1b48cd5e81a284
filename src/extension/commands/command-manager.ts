/**
 * The command registrar: one object per command (`Command`), registered through a `CommandManager` that owns every
 * `vscode.commands.registerCommand` disposable. The manager itself goes to context.subscriptions.
 */
import * as vscode from 'vscode';

/** One palette/programmatic command. `execute` receives the arguments as passed to executeCommand; its return value
 * is what executeCommand resolves with (tests and other extensions drive commands that way). */
export interface Command {
  readonly id: string;
  execute(...args: unknown[]): unknown;
}

export class CommandManager implements vscode.Disposable {
  private readonly registrations = new Map<string, vscode.Disposable>();

  /** Registers the command with VS Code; the returned disposable unregisters it (dispose() does so for all). */
  register(command: Command): vscode.Disposable {
    if (this.registrations.has(command.id)) throw new Error(`command ${command.id} is registered twice`);
    this.registrations.set(command.id, vscode.commands.registerCommand(command.id, command.execute, command));
    return new vscode.Disposable(() => {
      this.registrations.get(command.id)?.dispose();
      this.registrations.delete(command.id);
    });
  }

  dispose(): void {
    for (const registration of this.registrations.values()) registration.dispose();
    this.registrations.clear();
  }
}
