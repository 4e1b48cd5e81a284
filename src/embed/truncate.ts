/**
 * Cuts `s` to at most `maxChars` characters (Unicode code points), never splitting a surrogate pair —
 * unlike msgbrowse's byte cut, which can split UTF-8 and send U+FFFD (§11.15).
 */
export function truncateChars(s: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  if (s.length <= maxChars) return s; // code points ≤ UTF-16 units
  let count = 0;
  let i = 0;
  while (i < s.length && count < maxChars) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    i += pair ? 2 : 1;
    count++;
  }
  return s.slice(0, i);
}
