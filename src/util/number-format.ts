/**
 * Whole numbers as people read them: 1,234,567. By hand, not `toLocaleString('en-US')`: that costs
 * microseconds a call (a dashboard frame formats dozens), and its first call loads ICU's locale
 * data — 20 to 30 ms of a CLI start-up or a run's summary that prints one count.
 */
export function groupThousands(n: number): string {
  const rounded = Math.round(n);
  const grouped = String(Math.abs(rounded)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  // -0 (a negative fraction rounded) prints as 0.
  return rounded < 0 ? `-${grouped}` : grouped;
}
