/**
 * The secret detectors of core/redact.ts against real formats (test card numbers, registry example IBANs, the
 * one-time-code messages banks and apps send in en/es/pt/de/fr/it/nl) and against the near misses ordinary
 * messages are full of (order numbers, phone numbers, dates, times, amounts, postal and error codes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { findSecrets, ibanChecksumValid, luhnValid, redactSnippet, redactText } from '../../src/core/redact';

const R = (s: string) => redactText(s);

describe('one-time codes', () => {
  const cases: [string, string][] = [
    ['Your verification code is 483920.', 'Your verification code is [redacted: one-time code].'],
    ['483920 is your Google verification code', '[redacted: one-time code] is your Google verification code'],
    ['Your WhatsApp code: 123-456', 'Your WhatsApp code: [redacted: one-time code]'],
    ['OTP 88213 valid for 5 minutes', 'OTP [redacted: one-time code] valid for 5 minutes'],
    ['Tu código de verificación es 583 201', 'Tu código de verificación es [redacted: one-time code]'],
    ['O seu código de verificação é 4821', 'O seu código de verificação é [redacted: one-time code]'],
    ['Ihr Bestätigungscode lautet: 739104', 'Ihr Bestätigungscode lautet: [redacted: one-time code]'],
    ['mTAN 394857 für Ihre Überweisung', 'mTAN [redacted: one-time code] für Ihre Überweisung'],
    ['Votre code de vérification : 204918', 'Votre code de vérification : [redacted: one-time code]'],
    ['Il tuo codice di verifica è 55123', 'Il tuo codice di verifica è [redacted: one-time code]'],
    ['Je verificatiecode is 918273', 'Je verificatiecode is [redacted: one-time code]'],
    ['PIN: 1234', 'PIN: [redacted: one-time code]'],
    ['the code is\n482910', 'the code is\n[redacted: one-time code]'],
    ['381204 is your Facebook confirmation code', '[redacted: one-time code] is your Facebook confirmation code'],
    ['770331 — your login code for Discord', '[redacted: one-time code] — your login code for Discord'],
    ['Your verification code is: 64 19 82', 'Your verification code is: [redacted: one-time code]'],
    ['passcode 483920', 'passcode [redacted: one-time code]'],
    ['Your security code: 4821', 'Your security code: [redacted: one-time code]'],
    ['654321 - your WhatsApp code', '[redacted: one-time code] - your WhatsApp code'],
    // A PIN beside a secret another detector found stands alone (one pass finds both).
    ['CVV 947 1234 is my PIN', 'CVV [redacted: card security code] [redacted: one-time code] is my PIN'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(R(input), want));
});

describe('card numbers', () => {
  const cases: [string, string][] = [
    ['card 4111 1111 1111 1111 exp 12/26', 'card [redacted: card number] exp 12/26'],
    ['tarjeta 5555-5555-5555-4444', 'tarjeta [redacted: card number]'],
    ['amex 378282246310005', 'amex [redacted: card number]'],
    ['amex 3782 822463 10005', 'amex [redacted: card number]'],
    ['discover 6011111111111117.', 'discover [redacted: card number].'],
    ['visa 13: 4222222222222', 'visa 13: [redacted: card number]'],
    ['unionpay 19 digits 6214 8392 0174 5583 700', 'unionpay 19 digits [redacted: card number]'],
    ['pay with 4111 1111 1111 1111 123', 'pay with [redacted: card number] 123'],
    ['Card: 4111.1111.1111.1111', 'Card: [redacted: card number]'],
    ['card 4111/1111/1111/1111.', 'card [redacted: card number].'],
    ['card 5555/5555/5555/4444', 'card [redacted: card number]'],
    ['4111.1111.1111.1111 12/27 123', '[redacted: card number] 12/27 123'],
    ['CVV 123 4111.1111.1111.1111', 'CVV [redacted: card security code] [redacted: card number]'],
    ['card 4111.1111.1111.1111\n123', 'card [redacted: card number]\n123'],
    ['amex 3782.822463.10005', 'amex [redacted: card number]'],
    // After a date, a time or a token with digits on the same line (an IBAN's head still hides what follows it).
    ['Card exp 12/27 4111 1111 1111 1111', 'Card exp 12/27 [redacted: card number]'],
    ['at 10:30 5555 5555 5555 4444 cvv 123', 'at 10:30 [redacted: card number] cvv [redacted: card security code]'],
    ['room 4B 4111 1111 1111 1111', 'room 4B [redacted: card number]'],
    ['ticket A12 4111-1111-1111-1111', 'ticket A12 [redacted: card number]'],
    ['exp 12-27 4111 1111 1111 1111', 'exp 12-27 [redacted: card number]'],
    ['on 2024-05-12 4111 1111 1111 1111', 'on 2024-05-12 [redacted: card number]'],
    ['room 12 4111 1111 1111 1111', 'room 12 [redacted: card number]'],
    ['Flight LH12\n4111 1111 1111 1111', 'Flight LH12\n[redacted: card number]'],
    // A window after another number stays on its line: the card is the line's (a review's regression).
    ['Invoice Q1 2025\n3782 8224 6310 005', 'Invoice Q1 2025\n[redacted: card number]'],
    // Nor does any window reach into a line whose own groups make a card (a second review's regressions).
    ['Invoice 2025\n3782 8224 6310 005', 'Invoice 2025\n[redacted: card number]'],
    ['Visa 4111111111111111 2025\n3782 8224 6310 005', 'Visa [redacted: card number] 2025\n[redacted: card number]'],
    ['password: 555-123-4567\n3782 8224 6310 005', 'password: [redacted: password]\n[redacted: card number]'],
    ['Amex 3782 822463 10005 1234', 'Amex [redacted: card number] 1234'],
    // After another secret, as on a second pass.
    ['IBAN DE89 3704 0044 0532 0130 00 4111 1111 1111 1111', 'IBAN [redacted: IBAN] [redacted: card number]'],
    ['cvv 2025 4111 1111 1111 1111', 'cvv [redacted: card security code] [redacted: card number]'],
    ['password 1234 4111 1111 1111 1111', 'password [redacted: password] [redacted: card number]'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(R(input), want));
  it('Luhn', () => {
    assert.ok(luhnValid('4111111111111111'));
    assert.ok(!luhnValid('4111111111111112'));
  });
});

describe('card security codes', () => {
  const cases: [string, string][] = [
    ['exp 12/27 cvv 947', 'exp 12/27 cvv [redacted: card security code]'],
    ['CVC: 123', 'CVC: [redacted: card security code]'],
    ['CVV2 4821 (amex)', 'CVV2 [redacted: card security code] (amex)'],
    ['security code 123', 'security code [redacted: card security code]'],
    ['código de seguridad: 321', 'código de seguridad: [redacted: card security code]'],
    ['Kartenprüfnummer 555', 'Kartenprüfnummer [redacted: card security code]'],
    ['code de sécurité : 808', 'code de sécurité : [redacted: card security code]'],
    ['CVC-code: 123', 'CVC-code: [redacted: card security code]'],
    ['CVV-Nummer 123', 'CVV-Nummer [redacted: card security code]'],
    ['Sicherheitscode: 123', 'Sicherheitscode: [redacted: card security code]'],
    ['the cvv is 123', 'the cvv is [redacted: card security code]'],
    ['the CVV was 123', 'the CVV was [redacted: card security code]'],
    ['CVV (123)', 'CVV ([redacted: card security code])'],
    ['cvv: **123**', 'cvv: **[redacted: card security code]**'],
    ['c\u200bvv 947', 'c\u200bvv [redacted: card security code]'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(R(input), want));
});

describe('API keys', () => {
  const cases: [string, string][] = [
    ['OPENAI_API_KEY=sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678', 'OPENAI_API_KEY=[redacted: API key]'],
    ['key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', 'key [redacted: API key]'],
    ['token ghp_16C7e42F292c6912E7710c838347Ae178B4a.', 'token [redacted: API key].'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'aws [redacted: API key]'],
    ['slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp', 'slack [redacted: API key]'],
    ['maps AIzaSyA-1234567890abcdefghijklmnopqrstu', 'maps [redacted: API key]'],
    ['stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'stripe [redacted: API key]'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(R(input), want));
});

describe('IBANs', () => {
  const cases: [string, string][] = [
    ['IBAN DE89 3704 0044 0532 0130 00 please', 'IBAN [redacted: IBAN] please'],
    ['ES9121000418450200051332', '[redacted: IBAN]'],
    ['NL91ABNA0417164300', '[redacted: IBAN]'],
    ['GB82 WEST 1234 5698 7654 32.', '[redacted: IBAN].'],
    ['pt: PT50 0002 0123 1234 5678 9015 4', 'pt: [redacted: IBAN]'],
    ['FR14 2004 1010 0505 0001 3M02 606', '[redacted: IBAN]'],
    ['IT60X0542811101000000123456', '[redacted: IBAN]'],
    ['lowercase de89370400440532013000', 'lowercase [redacted: IBAN]'],
    ['IBAN DE89-3704-0044-0532-0130-00.', 'IBAN [redacted: IBAN].'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(R(input), want));
  it('mod-97', () => {
    assert.ok(ibanChecksumValid('DE89370400440532013000'));
    assert.ok(!ibanChecksumValid('DE89370400440532013001'));
  });
});

describe('passwords', () => {
  const cases: [string, string][] = [
    ['password: hunter2', 'password: [redacted: password]'],
    ['wifi password is Sunny-Day-42!', 'wifi password is [redacted: password]'],
    ['password: hunter2!', 'password: [redacted: password]'],
    ['Passwort: Sommer2024', 'Passwort: [redacted: password]'],
    ['Kennwort=geheim', 'Kennwort=[redacted: password]'],
    ['contraseña = "mi clave secreta"', 'contraseña = [redacted: password]'],
    ['a senha é abc123', 'a senha é [redacted: password]'],
    ['mot de passe: azerty123', 'mot de passe: [redacted: password]'],
    ['wachtwoord: tulp88', 'wachtwoord: [redacted: password]'],
    ['pwd=s3cr3t', 'pwd=[redacted: password]'],
    [
      'https://x.example/login?user=bob&pass=Hunter2x&next=/',
      'https://x.example/login?user=bob&pass=[redacted: password]&next=/',
    ],
    ['Server=db;Pass=Hunter2x;Database=prod', 'Server=db;Pass=[redacted: password];Database=prod'],
    ['curl -d "user=bob&pass=Hunter2x"', 'curl -d "user=bob&pass=[redacted: password]"'],
    ['export DB_PASS=hunter22', 'export DB_PASS=[redacted: password]'],
    ['login?pass="Hunter2x"', 'login?pass="[redacted: password]"'],
    ['the router password Gr33nTea', 'the router password [redacted: password]'],
    ['the password 1234', 'the password [redacted: password]'],
    ['https://harper:Tr0ub4dor&3@nas.example/share', 'https://harper:[redacted: password]@nas.example/share'],
    ['git clone https://bob:secret@git.example/r.git', 'git clone https://bob:[redacted: password]@git.example/r.git'],
    ['redis://:s3cretpw@localhost:6379', 'redis://:[redacted: password]@localhost:6379'],
    ['ftp://me@example.com:s3cret@ftp.example', 'ftp://me@example.com:[redacted: password]@ftp.example'],
    ['https://bob:p@ss@host.example', 'https://bob:[redacted: password]@host.example'],
    ['Reset password\nPassword: Gr33nTea', 'Reset password\nPassword: [redacted: password]'],
    ['router password password = Gr33nTea', 'router password password = [redacted: password]'],
    ["le mot de passe c'est Soleil2024", "le mot de passe c'est [redacted: password]"],
    ['the wifi password was Gr33nTea', 'the wifi password was [redacted: password]'],
    [
      "Sent you the wifi password 'cause you asked\nwifi password: 'Gr33nTea'",
      "Sent you the wifi password 'cause you asked\nwifi password: [redacted: password]",
    ],
    ['Password is Sunshine!', 'Password is [redacted: password]'],
    ['password P@ssw#rd!', 'password [redacted: password]'],
    [
      'https://x.example/login?user=bob&password=s3cret&next=1',
      'https://x.example/login?user=bob&password=[redacted: password]&next=1',
    ],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(R(input), want));
});

describe('near misses are left alone', () => {
  const same = [
    'the password is wrong',
    'I forgot my password again',
    'zip code 90210',
    'código postal 28013',
    'code postal 75001',
    'Postleitzahl 10115, Vorwahl 030',
    'error code 4040',
    'order 4111111111111112 (fails Luhn)',
    'Order #100234567 shipped',
    'Bestellnummer 302-4417758-2219',
    'tracking 1Z999AA10123456784',
    'call +49 151 2345 6789 or 0151 2345 6789',
    'my number is (555) 123-4567',
    'PIN 0151 2345 6789',
    'on 2024-05-01 at 12:30, or 01/05/2024',
    'it costs €1234 or 1234.50 EUR or 1.234,50 €',
    'transfer 4111 EUR by 2024',
    'I have 1234 apples and a code',
    'the code on line 1234',
    'DE89 3704 0044 0532 0130 01 (bad checksum)',
    'Meeting code: 123 456 789',
    'unix time 1714557600123',
    'message_id 48213, conversation_id 7',
    'the code is ready, see you at 1930',
    'password: [redacted: password]',
    'password reset link sent',
    'the password manager',
    'changed my password 2 times',
    'ssh://git@example.com/r and https://example.com:8080/x',
    'an sk-8 skateboard, risk-free, ask-me-anything',
    'Meeting code: 12 34 56 78',
    "the password isn't working",
    'I changed my password today.',
    'send me the wifi password pls!',
    'Password reset: click the link',
    'Password 2x falsch eingegeben, my password 1st attempt',
    'changed my password 13.05.2024, still no luck',
    'Forgot password https://accounts.example.com/recovery/v2?t=123',
    "I changed my password 'cause it expired",
    "J'ai oublié mon mot de passe hier.",
    'Seasons:\n2019-2020\n2020-2021, 2021/2022 2022/2023',
    'On 12-05-24 the code was deployed; Release 2024 - code freeze; 2024: code review',
    'sk-learn-tutorial-notebook-v2.ipynb and https://example.com/sk-introduction-to-machine-learning',
    'on 12.05.2024 at 10.30, ip 192.168.1.1, call 0151/2345/6789',
    'on 12/05 1234 5678 9012 3456 7890, DE89-3704-0044-0532-0130-01 (bad checksum), DE89 3704 0044 0532 0130 01',
    'boarding pass: 12A, compass=3, bypass=4',
    'https://ci.example/tests?pass=1&fail=0, results?pass=true, ?pass=1200&fail=3, buy?pass=weekend',
    'request id ada4fb07-65f2-4c3e-be27-f588a62b5f28',
  ];
  for (const s of same) it(JSON.stringify(s), () => assert.equal(R(s), s));
});

describe('snippets', () => {
  it('match markers do not hide a secret and do not survive inside it', () => {
    assert.equal(
      redactSnippet('your \u0002code\u0003 is 483920 ok'),
      'your \u0002code\u0003 is [redacted: one-time code] ok',
    );
    assert.equal(
      redactSnippet('\u00024111\u0003 1111 1111 1111 is my \u0002card\u0003'),
      '[redacted: card number] is my \u0002card\u0003',
    );
    assert.equal(redactSnippet('IBAN DE89 3704 \u00020044\u0003 0532 0130 00'), 'IBAN [redacted: IBAN]');
    // A control character between the word and the code is stripped when shown: the snippet is redacted as shown.
    assert.equal(
      redactSnippet('your \u0002code\u0003\u0001 483920 ok'),
      'your \u0002code\u0003\u0001 [redacted: one-time code] ok',
    );
  });
  it('with the body, the part of a secret a cut snippet shows is redacted', () => {
    const body = 'my old card: 4111 1111 1111 1111 is my card now';
    assert.equal(
      redactSnippet('…1111 1111 1111 is my \u0002card\u0003…', body),
      '…[redacted: card number] is my \u0002card\u0003…',
    );
    const otp = 'Your code is 483920 and it expires soon';
    assert.equal(
      redactSnippet('…483920 and it \u0002expires\u0003 soon', otp),
      '…[redacted: one-time code] and it \u0002expires\u0003 soon',
    );
  });
  it('a cut snippet is found in its body whatever the body holds: its own cut marks, stray match markers', () => {
    const words = 'and then we talked about the trip north for a long while';
    const digits = (t: string) => t.replace(/\D/g, '');
    // The body itself begins with "…" (a quoted fragment); the snippet's cut marks are FTS5's.
    const quoted = `… ${words} card 6011 0009 9013 9424 gwa gwb flamingo ${words}`;
    const cut = redactSnippet('…0009 9013 9424 gwa gwb \u0002flamingo\u0003 and then…', quoted);
    assert.ok(!digits(cut).includes('9013'), cut);
    // A literal U+0002 in the body reads as a match marker in the snippet.
    const stray = `${words} card 4242 4242 4242 4242 \u0002gwa gwb egret ${words}`;
    const cut2 = redactSnippet('…4242 4242 4242 \u0002gwa gwb \u0002egret\u0003 and then…', stray);
    assert.ok(!digits(cut2).includes('4242'), cut2);
  });
  it('a line starts a card and ends a code: a number on the line before or after does not hide them', () => {
    for (const [text, shown] of [
      ['Room 12\n4111 1111 1111 1111', 'Room 12\n[redacted: card number]'],
      ['exp 12/27\n5105 1051 0510 5100', 'exp 12/27\n[redacted: card number]'],
      ['PIN 1234\n5555 5555 5555 4444', 'PIN [redacted: one-time code]\n[redacted: card number]'],
      [
        'card 4111 1111 1111 1111\n1234 is the pin',
        'card [redacted: card number]\n[redacted: one-time code] is the pin',
      ],
      ['4111 1111 1111 1111\n5555 5555 5555 4444', '[redacted: card number]\n[redacted: card number]'],
      // On one line a run of groups stays one number; a phone number stays a phone number.
      ['1234 5678 9012 3456 7890', '1234 5678 9012 3456 7890'],
      ['call me on\n0151 2345 6789', 'call me on\n0151 2345 6789'],
    ])
      assert.equal(redactText(text), shown);
  });
  it('any dash between groups, and a code in bold; years in brackets or quotes stay', () => {
    for (const [text, shown] of [
      ['card 5425\u20112334\u20113010\u20119903', 'card [redacted: card number]'],
      ['card 4111\u20131111\u20131111\u20131111', 'card [redacted: card number]'],
      ['card 4111\u22121111\u22121111\u22121111', 'card [redacted: card number]'],
      ['code 602\u2013114', 'code [redacted: one-time code]'],
      ['Your code is *739104*', 'Your code is *[redacted: one-time code]*'],
      ['code **918273**', 'code **[redacted: one-time code]**'],
      ['*483920* is your code', '*[redacted: one-time code]* is your code'],
      ['The Da Vinci Code (2003)', 'The Da Vinci Code (2003)'],
      ['Da Vinci Code \u2014 2003 film', 'Da Vinci Code \u2014 2003 film'],
      ['Prices:\n2450\n3100\n2999\n4120\n1800', 'Prices:\n2450\n3100\n2999\n4120\n1800'],
      // Dates and amounts written with en dashes stay.
      ['meet 2024\u201305\u201301 at 12:30', 'meet 2024\u201305\u201301 at 12:30'],
      ['order *100234* shipped', 'order *100234* shipped'],
    ])
      assert.equal(redactText(text), shown);
  });
  it('a keyword split by a zero-width or control character, and U+FEFF shown as a space', () => {
    assert.equal(redactText('the wifi pa\u200bssword: sunflower'), 'the wifi pa\u200bssword: [redacted: password]');
    assert.equal(redactText('p\u0001assword: marmalade'), 'p\u0001assword: [redacted: password]');
    assert.equal(redactText('Your code\ufeff483920 expires'), 'Your code\ufeff[redacted: one-time code] expires');
    assert.equal(redactText('card 4539 1488 0343\ufeff6467'), 'card [redacted: card number]');
  });
});

describe('properties', () => {
  it('redaction is idempotent and leaves digit-free text unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        const once = redactText(s);
        assert.equal(redactText(once), once);
        if (!/\d/.test(s) && findSecrets(s).length === 0) assert.equal(once, s);
      }),
      { numRuns: 2000 },
    );
  });
  it('every Luhn-valid 16-digit number starting 4 or 5, in groups of four split by spaces, dashes, dots or slashes, is redacted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }),
        fc.constantFrom('', ' ', '-', '.', '/'),
        fc.constantFrom('', ' 12/27 123', '\n123', ' and 4821'),
        (ds, sep, after) => {
          const body = ds.join('');
          for (let check = 0; check < 10; check++) {
            const n = body + check;
            if (!/^[45]/.test(n) || !luhnValid(n)) continue;
            const written = n.match(/.{4}/g)!.join(sep);
            // What follows may be read as part of it (a 19-digit card, or a number then its CVV): never the card's digits.
            const out = redactText(`pay ${written}${after} now`);
            const digits = out.replace(/\D/g, '');
            assert.ok(out.startsWith('pay [redacted: card number]'), out);
            assert.ok(!digits.includes(n.slice(0, 8)) && !digits.includes(n.slice(8)), out);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
  it('a card after a date, a time, a room or another secret on its line is redacted, and so is what follows it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('exp 12/27 ', 'at 10:30 ', 'on 2024-05-12 ', 'exp 12-27 ', 'room 4B ', 'room 12 ', 'Q1 2025\n'),
        fc.constantFrom('4111 1111 1111 1111', '5555-5555-5555-4444', '3782 8224 6310 005', '6011111111111117'),
        fc.constantFrom('', ' 123', ' cvv 123', ' 12/27', '\n4242 4242 4242 4242'),
        (before, card, after) => {
          const out = redactText(`${before}${card}${after}`);
          assert.ok(out.startsWith(`${before}[redacted: card number]`), JSON.stringify(out));
          assert.ok(!out.includes('4242'), JSON.stringify(out));
        },
      ),
      { numRuns: 300 },
    );
  });
  it('a second pass finds nothing more, whatever secrets and numbers stand side by side', () => {
    const pieces = [
      '4111 1111 1111 1111',
      '4111-1111-1111-1111',
      '3782 8224 6310 005',
      'DE89 3704 0044 0532 0130 00',
      'DE89-3704-0044-0532-0130-00',
      '123',
      '2025',
      'AB12',
      'Q1',
      '12/27',
      '10:30',
      '483920',
      'code',
      'cvv',
      'password:',
      '?pass=Ab12',
      'IBAN',
      'Passwort:',
      '[redacted: card number]',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...pieces), fc.constantFrom(' ', '\n', '-', ', ')), { maxLength: 7 }),
        (parts) => {
          const text = parts.map(([p, sep]) => p + sep).join('');
          const once = redactText(text);
          assert.equal(redactText(once), once, JSON.stringify(text));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

/**
 * The spellings a real message gives a secret (issue #40): any Unicode space, a tab, two spaces or a line break between
 * the groups, an invisible character between digits, digits of another script, and whatever stands around it. The
 * oracle is independent of the detectors: the secret's digits as ASCII, which no redacted text may still hold.
 */
describe('secrets whatever their spelling', () => {
  const SEPARATORS = [
    ' ',
    '\u00a0',
    '\u202f',
    '\u2009',
    '\u2007',
    '\u3000',
    '\t',
    '  ',
    ' \u200b',
    '\u200b',
    '\n',
    ' \n',
    // Control characters: stripped from what is shown, so the groups meet there (issue #40's probe).
    '\u0001',
    ' \u007f',
  ];
  const ZEROS = [0x30, 0x660, 0x6f0, 0x966, 0x9e6, 0xff10, 0xe50];
  const BEFORE = ['', 'see ', '(', '"', '«', '🙂 ', 'number:\n', 'x\u00a0'];
  const AFTER = ['', ' ', '.', ')', '!', '"', '»', ' 🙂', '\n', ', thanks'];
  /** A digit string in the script whose zero is `zero`. */
  const script = (digits: string, zero: number) => digits.replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)));
  /** The digits of `text` of any script, in ASCII (the test's own reading, not the redactor's). */
  const asciiDigits = (text: string) =>
    [...text]
      .map((ch) => {
        const z = ZEROS.find((x) => ch.codePointAt(0)! >= x && ch.codePointAt(0)! < x + 10);
        return z === undefined ? (/\d/.test(ch) ? ch : ' ') : String(ch.codePointAt(0)! - z);
      })
      .join('')
      .replace(/ /g, '');
  const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);

  const luhnCard = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }).map((ds) => {
    const body = `4${ds.slice(1).join('')}`;
    for (let c = 0; c < 10; c++) if (luhnValid(body + c)) return body + c;
    return '4111111111111111';
  });

  it('card numbers grouped with any space, tab, two spaces, a line break or an invisible character, in any script', () => {
    fc.assert(
      fc.property(
        luhnCard,
        pick(SEPARATORS),
        pick(ZEROS),
        pick(BEFORE),
        pick(AFTER),
        (card, sep, zero, before, after) => {
          const written = script(card.match(/.{4}/g)!.join(sep), zero);
          const out = redactText(`pay with ${before}${written}${after}`);
          assert.ok(out.includes('[redacted: card number]'), JSON.stringify(out));
          assert.ok(
            !asciiDigits(out).includes(card.slice(0, 8)) && !asciiDigits(out).includes(card.slice(8)),
            JSON.stringify(out),
          );
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('IBANs grouped or wrapped onto two lines', () => {
    const ibans = [
      'DE89370400440532013000',
      'GB82WEST12345698765432',
      'FR1420041010050500013M02606',
      'NL91ABNA0417164300',
      'PT50000201231234567890154',
    ];
    fc.assert(
      fc.property(
        pick(ibans),
        pick(SEPARATORS),
        fc.integer({ min: 1, max: 5 }),
        pick(BEFORE),
        pick(AFTER),
        (iban, sep, wrapAt, before, after) => {
          const groups = iban.match(/.{1,4}/g)!;
          const written = groups
            .map((g, i) => (i === 0 ? g : (i === Math.min(wrapAt, groups.length - 1) ? '\n' : sep) + g))
            .join('');
          const out = redactText(`IBAN ${before}${written}${after}`);
          assert.ok(out.includes('[redacted: IBAN]'), JSON.stringify(out));
          assert.ok(!asciiDigits(out).includes(asciiDigits(iban).slice(-8)), JSON.stringify(out));
        },
      ),
      { numRuns: 800 },
    );
  });

  it('one-time codes written 3+3 with any space, or in another script', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100000, max: 999999 }),
        pick(SEPARATORS.filter((s) => !s.includes('\n'))),
        pick(ZEROS),
        pick(['Your code is ', 'código: ', 'Ihr Bestätigungscode lautet ', 'OTP ']),
        pick(AFTER),
        (n, sep, zero, lead, after) => {
          const code = String(n);
          const out = redactText(`${lead}${script(code.slice(0, 3) + sep + code.slice(3), zero)}${after}`);
          assert.ok(out.includes('[redacted: one-time code]'), JSON.stringify(out));
          assert.ok(!asciiDigits(out).includes(code.slice(0, 3) + code.slice(3)), JSON.stringify(out));
        },
      ),
      { numRuns: 800 },
    );
  });

  it('a password with its last character, whatever follows it', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9]{3,12}[!?.#$%*]?$/),
        pick(['password: ', 'Passwort = ', 'senha: ', 'pwd=']),
        pick(AFTER),
        (value, lead, after) => {
          const out = redactText(`${lead}${value}${after}`);
          assert.ok(out.startsWith(`${lead}[redacted: password]`), JSON.stringify(out));
          assert.ok(!out.includes(value.slice(-3)) || after.includes(value.slice(-3)), JSON.stringify(out));
        },
      ),
      { numRuns: 800 },
    );
  });

  it('near misses stay as written, whatever their spaces and scripts: postal codes, order numbers, amounts, phone numbers, times', () => {
    const misses = [
      (s: string) => `zip code${s}90210`,
      (s: string) => `code postal${s}75001`,
      (s: string) => `Order #100${s}234${s}567 shipped`,
      (s: string) => `total 1${s}234${s}567${s}€`,
      (s: string) => `le montant est de 12${s}345,50${s}EUR`,
      (s: string) => `call +49${s}151${s}2345${s}6789`,
      (s: string) => `on 2024-05-01 at 12:30${s}or 01/05/2024`,
      (s: string) => `the invoice 4716${s}0000${s}1111${s}2224 (bad Luhn)`,
      (s: string) => `Meeting code:${s}123${s}456${s}789`,
    ];
    fc.assert(
      fc.property(
        pick(misses),
        pick(SEPARATORS.filter((s) => s.trim() === '' && !s.includes('\n'))),
        pick(ZEROS),
        (miss, sep, zero) => {
          const text = script(miss(sep), zero);
          assert.equal(redactText(text), text);
        },
      ),
      { numRuns: 600 },
    );
  });
});
