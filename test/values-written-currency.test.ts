/** The currency an amount is written in, and a discount taken off a rate in exact decimals (README, "Amounts the service cannot hold"). */
import { describe, expect, it } from 'vitest';
import { currencyNamed, writtenCurrency, writtenIn } from '../src/values/written-currency.ts';
import { discounted } from '../src/mapping/amount-rules.ts';
import { taxPercentOf } from '../src/values/decimal.ts';
import { creditRate } from '../src/mapping/bill-kinds.ts';

describe('writtenCurrency', () => {
  it('finds a symbol or an ISO code before or after the digits, and gives the amount without it', () => {
    const cases: Array<[string, string, string]> = [
      ['€1,250.00', '€', '1,250.00'], ['-€1,250.00', '€', '-1,250.00'], ['€-1,250.00', '€', '-1,250.00'], ['(€1,250.00)', '€', '(1,250.00)'],
      ['1.250,00 €', '€', '1.250,00'], ["CHF 1'250.00", 'CHF', "1'250.00"], ['EUR 10', 'EUR', '10'], ['10 USD', 'USD', '10'],
      ['£12.00', '£', '12.00'], [' $(1,250.00)', '$', '(1,250.00)'], ['US$ 5', 'US$', '5'],
    ];
    for (const [text, marker, amount] of cases) expect(writtenCurrency(text), text).toMatchObject({ marker, amount });
    expect(writtenCurrency('$12')!.codes).toEqual(expect.arrayContaining(['USD', 'CAD', 'AUD', 'MXN', 'ARS', 'CLP', 'COP']));
    expect(writtenCurrency('£3')!.codes).toEqual(['GBP']);
  });

  it('writtenIn asks one currency what `codes` lists: `$` may mean each dollar currency and no other', () => {
    // Asked first, before anything reads the `$` list (built on first use), then compared with it.
    const asked = [...Intl.supportedValuesOf('currency'), 'usd', 'XYZ', ''];
    const dollar = writtenCurrency('$12')!;
    const answers = asked.map((code) => writtenIn(dollar, code));
    expect(answers).toEqual(asked.map((code) => dollar.codes.includes(code)));
    expect(writtenIn(dollar, 'USD') && writtenIn(dollar, 'CAD') && !writtenIn(dollar, 'EUR')).toBe(true);
    // USD is answered without asking the runtime (written-currency.ts): the runtime agrees.
    const usd = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', currencyDisplay: 'narrowSymbol' }).formatToParts(1);
    expect(usd.find((p) => p.type === 'currency')?.value).toBe('$');
    const euro = writtenCurrency('€3')!;
    expect([writtenIn(euro, 'EUR'), writtenIn(euro, 'USD')]).toEqual([true, false]);
  });

  it('plain numbers, percentages, text and three capitals that are no currency have none', () => {
    for (const text of ['1250', '-12.5', '.5', '12%', 'abc', 'ABC 10', '']) expect(writtenCurrency(text), text).toBeUndefined();
  });

  it('a Currency cell names its code in any case, or a symbol', () => {
    expect(currencyNamed(' eur ')).toEqual(['EUR']);
    expect(currencyNamed('€')).toEqual(['EUR']);
    expect(currencyNamed('Euro')).toEqual(['EUR']);
    expect(currencyNamed('us dollar')).toEqual(['USD']);
    expect(currencyNamed('Moon Dollar')).toBeUndefined();
  });
});

describe('discounted and credit rates', () => {
  it('unit price × (1 − discount %) when a whole number of cents, else undefined', () => {
    expect(discounted('85.00', '10')).toBe('76.50');
    expect(discounted('56.00', '12.5')).toBe('49.00');
    expect(discounted('56.5', '12.5')).toBeUndefined(); // 49.4375
    expect(discounted('-100', '15')).toBe('-85.00');
    expect(discounted('0.05', '10')).toBeUndefined();
    expect(discounted('120.00', '100')).toBe('0.00');
  });

  it('a credit is −|rate|', () => {
    expect(creditRate('120.00')).toBe('-120.00');
    expect(creditRate('-120.00')).toBe('-120.00');
    expect(creditRate('0.00')).toBe('0.00');
  });
});

describe('taxPercentOf: a tax amount as the percentage with the fewest decimals that gives it, rounded half up to cents', () => {
  it('20.00 on 100.00 is 20, 2.47 on 12.34 is 20, 82.50 on 1000 is 8.25, a line rounded by Xero (2.99 on 14.97) is 20, zero on anything is 0', () => {
    const cases: Array<[string, string, string]> = [['100.00', '20.00', '20'], ['12.34', '2.47', '20'], ['1000', '82.50', '8.25'], ['14.97', '2.99', '20'], ['240.00', '12.00', '5'], ['9.45', '1.89', '20'], ['56.50', '0.00', '0'], ['0.00', '0.00', '0'], ['-150.00', '30.00', '20'], ['100', '17.5', '17.5']];
    for (const [base, tax, percent] of cases) expect(taxPercentOf(base, tax), `${tax} on ${base}`).toBe(percent);
  });

  it('none when no percentage with two decimals gives the amount: 20.00 on 1412.50, a tax on nothing, a fraction of a cent', () => {
    expect(taxPercentOf('1412.50', '20.00')).toBeUndefined();
    expect(taxPercentOf('0', '1.00')).toBeUndefined();
    expect(taxPercentOf('3', '0.001')).toBeUndefined();
  });
});
