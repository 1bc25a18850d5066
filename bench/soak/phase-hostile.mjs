export async function phaseHostile() {
  return { skipped: 'not yet' };
}
