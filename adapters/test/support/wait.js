/** Poll `test()` every 10 ms until it is true, or fail after `ms`. */
export async function waitFor(test, what = "condition", ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    let ok;
    try {
      ok = await test();
    } catch {
      ok = false;
    }
    if (ok) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
