//! What `#[derive_dataflow]` finds in a task fn's body, and the compile-time
//! check that binds it to a node's `reads:` / `writes:` (the `derived`
//! clause). Consts only: evaluated while the program compiles, never linked.

/// The accesses a task fn makes through its node, found by
/// `#[derive_dataflow]` (each signal once, by its path).
pub struct Derived {
    /// The fn's name.
    pub task: &'static str,
    /// The signals it reads through its node (`node.reader(&SIG)`).
    pub reads: &'static [DerivedAccess],
    /// The signals it writes through its node (`node.publish(&SIG, v)`,
    /// `node.writer(&SIG)`).
    pub writes: &'static [DerivedAccess],
}

/// One signal a task fn's body reads or writes through its node.
pub struct DerivedAccess {
    /// The signal's path as the body spells it, without a leading
    /// `crate::` / `self::` / `super::` (`signals::SAMPLE`, `SAMPLE`).
    pub name: &'static str,
    /// The error when the node's list leaves it out (it names the signal,
    /// the fn and the fix).
    pub unlisted: &'static str,
}

impl Derived {
    /// Whether the body reads (`write` false) or writes the signal at
    /// `path` (see [`same_signal`]).
    pub const fn has(&self, write: bool, path: &str) -> bool {
        let list = if write { self.writes } else { self.reads };
        let mut i = 0;
        while i < list.len() {
            if same_signal(list[i].name, path) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Fails const evaluation, naming the signal, if the body reads or
    /// writes a signal the node's `reads:` / `writes:` (`reads`, `writes`:
    /// their paths, without a leading `crate::`) leave out.
    pub const fn check_listed(&self, reads: &[&str], writes: &[&str]) {
        check_side(self.reads, reads);
        check_side(self.writes, writes);
    }
}

const fn check_side(found: &[DerivedAccess], listed: &[&str]) {
    let mut i = 0;
    while i < found.len() {
        let mut j = 0;
        let mut seen = false;
        while j < listed.len() {
            seen |= same_signal(found[i].name, listed[j]);
            j += 1;
        }
        if !seen {
            panic!("{}", found[i].unlisted);
        }
        i += 1;
    }
}

/// Whether two spellings of a path can name one static: equal, or one is
/// the other's tail at a `::` (`SAMPLE` and `signals::SAMPLE`, seen from a
/// module that imports it). `a::STATE` and `b::STATE` cannot: that is the
/// check's reach past the last segment. A path renamed on the way (`use
/// x as y`) does not match, and is reported as a disagreement.
pub const fn same_signal(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let start = long.len() - short.len();
    if start > 0 && (start < 2 || long[start - 1] != b':' || long[start - 2] != b':') {
        return false;
    }
    let mut i = 0;
    while i < short.len() {
        if long[start + i] != short[i] {
            return false;
        }
        i += 1;
    }
    true
}
