export async function phaseReplicas() {
  return { skipped: 'not yet' };
}
