//! What a randomized model test needs: a seeded generator with no extra
//! dependencies, and the `MODEL_SEED` variable that replays one run.

/// Xorshift64: deterministic per seed, so a failing sequence replays.
/// A zero seed would stay zero: seed it with anything else.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// `MODEL_SEED=<u64>` from the environment, if set and a number: the seed
/// a failing run printed, to replay it.
pub fn replay_seed() -> Option<u64> {
    std::env::var("MODEL_SEED").ok()?.parse().ok()
}
