import { stringify } from 'csv-stringify/sync';

/**
 * The columns of the sales report as CSV, in order: a row's fields, then the report's currency; `refunded`
 * where the museum takes payment.
 */
const COLUMNS = [
  'date',
  'ticketType',
  'eventId',
  'eventName',
  'category',
  'sold',
  'cancelled',
  'checkedIn',
  'revenue',
  'currency',
] as const;

/**
 * The report as the REST route answers it (`{currency, …, rows}`) as RFC 4180 CSV: a header line, CRLF line
 * ends, fields quoted where they must be. A text that a spreadsheet would run as a formula (=, +, -, @ first)
 * is prefixed with `'`, as OWASP advises for CSV exports.
 */
export function salesCsv(report: Record<string, unknown>, variables: Record<string, unknown>): string {
  const rows = (report.rows as Record<string, unknown>[]).map((row) => ({
    ...row,
    currency: report.currency,
  }));
  return stringify(rows, {
    header: true,
    columns: variables.payments
      ? COLUMNS.flatMap((column) => (column === 'cancelled' ? [column, 'refunded'] : [column]))
      : [...COLUMNS],
    record_delimiter: 'windows',
    escape_formulas: true,
    cast: { number: (value) => String(value) },
  });
}
