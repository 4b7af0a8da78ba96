//! When to checkpoint: policies decide the length of the next compute chunk.
//!
//! Periodic policies are resolved from the scenario's `interval` (Young, Daly, the exact
//! optimum or a fixed duration) times a `factor`. Adaptive policies (an interval that depends
//! on the time since the last failure, or re-estimated from observed failures) implement the
//! same [`Policy`] trait and run on the engine's general per-segment path.

/// What the policy sees of the job when it chooses the next chunk.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Progress {
    /// Chunks completed and checkpointed so far.
    pub committed_chunks: u64,
    /// Work saved by the last checkpoint (s).
    pub committed_work_s: f64,
    /// Wall-clock time now (s since the job started).
    pub time_s: f64,
}

/// The next compute chunk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chunk {
    /// Compute time before the next checkpoint (s). > 0.
    pub compute_s: f64,
    /// Whether this chunk finishes the job's work.
    pub last: bool,
}

/// A checkpointing policy: given the job's progress, the next compute chunk, or `None` when
/// the work is done.
pub trait Policy {
    /// The next chunk after `progress`, or `None` once all work is committed.
    fn next_chunk(&self, progress: &Progress) -> Option<Chunk>;
}

/// The largest remainder W − ⌊W/T⌋·T, as a fraction of W, that [`ChunkLayout`] takes for
/// rounding rather than a last chunk: 8ε. T = fl(W/k) is within ε/2 of W/k, so k·T, rounded,
/// is within about ε·W of W; for about 6% of k, k·T fell short and the job got a (k+1)-th
/// chunk of 10⁻¹¹ s with a whole checkpoint write after it.
pub const SLIVER: f64 = 8.0 * f64::EPSILON;

/// The largest chunk count that a float holds exactly, 2⁵³: the equal chunkings W/k that
/// the finite-work optima compare stop there.
pub const MAX_EXACT_COUNT: f64 = 9_007_199_254_740_992.0;

/// How finite work `W` splits into chunks of at most `T`: `count − 1` chunks of `T` and a
/// last chunk of `last_s` = W − (count − 1)·T ∈ (0, T] (MODELS.md §1, "Finite work").
///
/// Computed once, so the engine's two paths and the closed forms share one chunking and
/// never disagree on a rounding of W/T. A remainder of at most [`SLIVER`]·W is rounding,
/// not a chunk: the equal chunking T = W/k has k chunks, never k plus a sliver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkLayout {
    /// Number of chunks, ≥ 1.
    pub count: u64,
    /// Length of every chunk but the last (s); infinite when the job never checkpoints.
    pub full_s: f64,
    /// Length of the last chunk (s), in (0, full_s].
    pub last_s: f64,
}

impl ChunkLayout {
    /// Chunks of `interval_s` (s; may be infinite: one chunk) over `work_s` (s) of work.
    /// Both must be > 0.
    pub fn new(work_s: f64, interval_s: f64) -> Self {
        if interval_s >= work_s {
            return ChunkLayout { count: 1, full_s: interval_s, last_s: work_s };
        }
        let whole = (work_s / interval_s).floor();
        let rest_s = work_s - whole * interval_s;
        // T = W/k rounds, so k·T may fall an ulp or two short of W: a remainder within
        // rounding of W is no chunk of its own (it would cost a whole write).
        if rest_s > SLIVER * work_s {
            ChunkLayout { count: whole as u64 + 1, full_s: interval_s, last_s: rest_s }
        } else {
            // W/T rounded up to an integer, or T divides W: the last chunk is a full one,
            // shortened by whatever rounding left.
            let count = whole.max(1.0);
            let last_s = work_s - (count - 1.0) * interval_s;
            ChunkLayout { count: count as u64, full_s: interval_s, last_s }
        }
    }

    /// Number of full-length chunks before the last one.
    pub fn full_chunks(&self) -> u64 {
        self.count - 1
    }
}

/// Checkpoint every `interval` of compute: the policy of Young (1974) and Daly (2006).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Periodic {
    /// The chunking of the job's work.
    pub layout: ChunkLayout,
}

impl Periodic {
    /// Periodic checkpoints every `interval_s` (s; infinite for none) over `work_s` (s).
    pub fn new(work_s: f64, interval_s: f64) -> Self {
        Periodic { layout: ChunkLayout::new(work_s, interval_s) }
    }
}

impl Policy for Periodic {
    fn next_chunk(&self, progress: &Progress) -> Option<Chunk> {
        let k = progress.committed_chunks;
        let n = self.layout.count;
        if k >= n {
            None
        } else if k + 1 == n {
            Some(Chunk { compute_s: self.layout.last_s, last: true })
        } else {
            Some(Chunk { compute_s: self.layout.full_s, last: false })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_splits_work_exactly() {
        let l = ChunkLayout::new(10.0, 3.0);
        assert_eq!((l.count, l.full_s, l.last_s), (4, 3.0, 1.0));
        let l = ChunkLayout::new(9.0, 3.0);
        assert_eq!((l.count, l.last_s), (3, 3.0));
        let l = ChunkLayout::new(9.0, f64::INFINITY);
        assert_eq!((l.count, l.last_s), (1, 9.0));
        let l = ChunkLayout::new(2.0, 3.0);
        assert_eq!((l.count, l.last_s), (1, 2.0));
    }

    #[test]
    fn layout_never_leaves_a_sliver() {
        // 0.1 does not divide 1.0 in binary; the chunks must still cover the work once.
        for (w, t) in [(1.0, 0.1), (2e5, 2e5 / 7.0), (3.3, 1.1), (1e6, 1e6 / 3.0)] {
            let l = ChunkLayout::new(w, t);
            let covered = l.full_chunks() as f64 * l.full_s + l.last_s;
            assert!(l.last_s > 0.0 && l.last_s <= l.full_s * (1.0 + 1e-12), "{w} {t} {l:?}");
            assert!((covered - w).abs() <= 1e-12 * w, "{w} {t} {l:?}");
        }
    }

    /// The equal chunkings W/k have exactly k chunks, the last a full one (to rounding): for
    /// about 6% of k, k·fl(W/k) falls short of W by an ulp, which made a sliver chunk.
    #[test]
    fn an_equal_chunking_has_its_count() {
        let mut slivers_before = 0;
        for w in [2e5, 1.8e6, 86_400.0, 3e7, 12_345.678, 1e-3] {
            for k in 1..5000_u64 {
                let t = w / k as f64;
                let l = ChunkLayout::new(w, t);
                assert_eq!(l.count, k, "W = {w}, k = {k}: {l:?}");
                assert!((l.last_s - t).abs() <= 1e-9 * t, "W = {w}, k = {k}: {l:?}");
                slivers_before += usize::from(w - (w / t).floor() * t > 0.0 && (w / t).floor() as u64 == k);
            }
        }
        // The cases the rule is for occur here.
        assert!(slivers_before > 100, "{slivers_before}");
    }

    #[test]
    fn periodic_walks_the_layout() {
        let p = Periodic::new(10.0, 3.0);
        let mut progress = Progress::default();
        let mut chunks = vec![];
        while let Some(c) = p.next_chunk(&progress) {
            chunks.push((c.compute_s, c.last));
            progress.committed_chunks += 1;
        }
        assert_eq!(chunks, vec![(3.0, false), (3.0, false), (3.0, false), (1.0, true)]);
    }
}
