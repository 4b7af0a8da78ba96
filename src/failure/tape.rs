//! A replication's failure stream drawn once and replayed for every sweep point that shares
//! it (DESIGN.md, "common random numbers": a replication first draws the job's failure stream,
//! then plays each point against it).
//!
//! Replaying gives exactly the failures a fresh stream of the same model, seed and replication
//! would give, so results do not change; what changes is the cost: a per-node platform sampled
//! by cohorts, a trace or a correlated stream is drawn once per replication instead of once per
//! point.

use super::{ExponentialStream, Failure, FailureStream, Failures, Stream};

/// The failures of one replication's stream recorded so far, with the stream that draws more
/// on demand.
#[derive(Debug)]
pub struct Tape<'a> {
    /// The model, seed, replication and downtime that build the stream (to rebuild it where
    /// the tape has stopped recording).
    failures: &'a Failures,
    seed: u64,
    rep: u64,
    downtime_s: f64,
    /// [`Failures::exponential_stream_mtbf_s`], worked out once rather than at every
    /// replication (for a platform of exponential nodes it costs two divisions).
    poisson_mtbf_s: Option<f64>,
    /// The stream being recorded, and how many failures it has given.
    source: Stream,
    drawn: usize,
    /// Its first failures, at most `limit`.
    seen: Vec<Failure>,
    /// The most failures recorded (at most [`Tape::MAX_RECORDED`]).
    limit: usize,
}

impl<'a> Tape<'a> {
    /// The most failures a tape records (16 bytes each): a replication that needs more replays
    /// the rest from a stream of its own, rebuilt and advanced past the recorded ones.
    pub const MAX_RECORDED: usize = 1 << 18;

    /// An empty tape of the stream of `failures` for replication `rep` under master seed
    /// `seed`, with repairs of `downtime_s` (s) (see [`Failures::stream`]).
    pub fn new(failures: &'a Failures, seed: u64, rep: u64, downtime_s: f64) -> Self {
        let poisson_mtbf_s = failures.exponential_stream_mtbf_s();
        let source = Self::stream(failures, poisson_mtbf_s, seed, rep, downtime_s);
        Tape {
            failures,
            seed,
            rep,
            downtime_s,
            poisson_mtbf_s,
            source,
            drawn: 0,
            seen: Vec::new(),
            limit: Self::MAX_RECORDED,
        }
    }

    /// [`Failures::stream`] of replication `rep`, a Poisson stream (`poisson_mtbf_s`, what
    /// [`Failures::exponential_stream_mtbf_s`] gives) built directly: the same failures.
    fn stream(failures: &Failures, poisson_mtbf_s: Option<f64>, seed: u64, rep: u64, downtime_s: f64) -> Stream {
        use crate::runner::{FAILURE_STREAM, stream_rng};
        match poisson_mtbf_s {
            Some(mtbf_s) => Stream::Exponential(ExponentialStream::new(mtbf_s, stream_rng(seed, rep, FAILURE_STREAM))),
            None => failures.stream(seed, rep, downtime_s),
        }
    }

    /// This tape's stream, from its start.
    fn source_stream(&self) -> Stream {
        Self::stream(self.failures, self.poisson_mtbf_s, self.seed, self.rep, self.downtime_s)
    }

    /// Empties the tape and turns it to replication `rep` of the same stream, keeping its
    /// memory, so that a loop over replications allocates once.
    pub fn rewind_to(&mut self, rep: u64) {
        self.seen.clear();
        self.rep = rep;
        self.drawn = 0;
        self.source = self.source_stream();
    }

    /// The tape recording at most `max_recorded` failures (at most [`Tape::MAX_RECORDED`]):
    /// a run that holds many tapes at once shares a memory budget among them. Past the limit
    /// replays rebuild their own streams, with the same failures.
    pub fn limited(mut self, max_recorded: usize) -> Self {
        self.limit = max_recorded.min(Self::MAX_RECORDED);
        self
    }

    /// A replay of the stream from its start.
    pub fn replay(&mut self) -> Replay<'_, 'a> {
        Replay { tape: self, next: 0, own: None }
    }

    /// Failures recorded so far.
    pub fn recorded(&self) -> usize {
        self.seen.len()
    }

    /// Whether every failure drawn so far is recorded: false once a replay went past the
    /// tape's limit (its later replays past the limit draw afresh).
    pub fn complete(&self) -> bool {
        self.drawn == self.seen.len()
    }

    /// Failures the recording has room for without growing (its buffer's capacity: what it
    /// holds in memory).
    pub fn reserved(&self) -> usize {
        self.seen.capacity()
    }
}

/// One pass over a [`Tape`]'s stream: recorded failures first, then new ones drawn (and
/// recorded) on demand.
#[derive(Debug)]
pub struct Replay<'t, 'a> {
    tape: &'t mut Tape<'a>,
    /// Index of the next failure in the stream.
    next: usize,
    /// The replay's own stream, once it is past both what was recorded and where the tape's
    /// source is (only past the tape's recording limit).
    own: Option<Stream>,
}

/// Appends `f` to `seen`, a recording of at most `limit` failures that has room for it,
/// growing it by doubling but never past the limit (the limit bounds the memory).
#[inline]
fn record_in(seen: &mut Vec<Failure>, limit: usize, f: Failure) {
    let len = seen.len();
    debug_assert!(len < limit, "no room on the tape");
    if len == seen.capacity() {
        seen.reserve_exact(len.max(8).min(limit - len));
    }
    seen.push(f);
}

/// Records in `seen` (at most `limit` failures) the times `source` holds already drawn, and
/// counts them in `drawn`: recorded at once, a replay's next pulls find them on the tape (the
/// same failures, without a call each). Not inlined, so that [`Replay::draw`] keeps a small
/// frame for the other streams.
#[inline(never)]
fn record_ahead(source: &mut ExponentialStream, seen: &mut Vec<Failure>, drawn: &mut usize, limit: usize) {
    let ahead = source.take_ahead(limit - seen.len());
    *drawn += ahead.len();
    for &time_s in ahead {
        record_in(seen, limit, Failure { time_s, scope: ExponentialStream::SCOPE });
    }
}

impl Replay<'_, '_> {
    /// The next failure where it is not recorded yet.
    #[cold]
    #[inline(never)]
    fn draw(&mut self) -> Failure {
        self.next += 1;
        if let Some(own) = &mut self.own {
            return own.next_failure();
        }
        let tape = &mut *self.tape;
        if self.next - 1 == tape.drawn {
            let f = tape.source.next_failure();
            tape.drawn += 1;
            if tape.seen.len() < tape.limit {
                record_in(&mut tape.seen, tape.limit, f);
                if let Stream::Exponential(source) = &mut tape.source {
                    record_ahead(source, &mut tape.seen, &mut tape.drawn, tape.limit);
                }
            }
            return f;
        }
        // An earlier replay drew the source past the recording: rebuild the stream and skip
        // what this replay has had (the stream is a function of its model, seed and
        // replication, so the failures are the same).
        let mut own = tape.source_stream();
        for _ in 0..self.next - 1 {
            own.next_failure();
        }
        let f = own.next_failure();
        self.own = Some(own);
        f
    }
}

impl FailureStream for Replay<'_, '_> {
    #[inline]
    fn next_failure(&mut self) -> Failure {
        // Past the recording (where `own` may be set) `get` finds nothing: no check of `own` here.
        match self.tape.seen.get(self.next) {
            Some(&f) => {
                self.next += 1;
                f
            }
            None => self.draw(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::FailureModel;

    fn poisson() -> Failures {
        Failures::simple(FailureModel::Poisson { mtbf_s: 100.0 }, 1)
    }

    fn times(stream: &mut impl FailureStream, n: usize) -> Vec<f64> {
        (0..n).map(|_| stream.next_failure().time_s).collect()
    }

    #[test]
    fn replays_are_the_stream() {
        let failures = poisson();
        let fresh = times(&mut failures.stream(7, 3, 0.0), 50);
        let mut tape = Tape::new(&failures, 7, 3, 0.0);
        // Replays of different lengths, each from the start, in any order.
        for n in [10, 30, 5, 50, 40] {
            assert_eq!(times(&mut tape.replay(), n), fresh[..n]);
        }
        // The 50 pulled, and the rest of the Poisson stream's last batch, already drawn.
        let recorded = tape.recorded();
        assert!((50..50 + ExponentialStream::AHEAD).contains(&recorded), "{recorded} recorded");
        assert!(tape.complete());
        assert_eq!(times(&mut tape.replay(), recorded), times(&mut failures.stream(7, 3, 0.0), recorded));
    }

    #[test]
    fn past_the_recording_a_replay_rebuilds_the_stream() {
        let failures = poisson();
        let n = Tape::MAX_RECORDED + 1000;
        let fresh = times(&mut failures.stream(1, 2, 0.0), n + 10);
        let mut tape = Tape::new(&failures, 1, 2, 0.0);
        assert_eq!(times(&mut tape.replay(), n), fresh[..n]);
        assert_eq!(tape.recorded(), Tape::MAX_RECORDED);
        // The source is at n; this replay needs to go past the recording to n + 10.
        assert_eq!(times(&mut tape.replay(), n + 10), fresh);
        // One that stays within the recording.
        assert_eq!(times(&mut tape.replay(), 20), fresh[..20]);
    }

    #[test]
    fn a_limited_tape_records_its_limit_and_replays_the_stream() {
        let failures = poisson();
        let (limit, n) = (100, 250);
        let fresh = times(&mut failures.stream(4, 5, 0.0), n);
        let mut tape = Tape::new(&failures, 4, 5, 0.0).limited(limit);
        assert_eq!(times(&mut tape.replay(), n - 50), fresh[..n - 50]);
        assert_eq!(tape.recorded(), limit);
        for m in [n, 30, limit, limit + 1, n] {
            assert_eq!(times(&mut tape.replay(), m), fresh[..m]);
        }
        assert_eq!(tape.recorded(), limit);
        assert!(tape.reserved() <= limit, "the limit bounds the memory: {}", tape.reserved());
        assert!(!tape.complete());
        assert_eq!(Tape::new(&failures, 4, 5, 0.0).limited(usize::MAX).limit, Tape::MAX_RECORDED);
        let mut short = Tape::new(&failures, 4, 5, 0.0).limited(limit);
        times(&mut short.replay(), limit);
        assert!(short.complete());
    }

    #[test]
    fn a_rewound_tape_starts_empty_on_the_new_replication() {
        let failures = poisson();
        let mut tape = Tape::new(&failures, 1, 1, 0.0).limited(20);
        times(&mut tape.replay(), 30);
        let reserved = tape.reserved();
        tape.rewind_to(2);
        assert_eq!((tape.recorded(), tape.reserved()), (0, reserved));
        // Past the limit too, replays are replication 2's stream, not 1's.
        let fresh = times(&mut failures.stream(1, 2, 0.0), 40);
        assert_eq!(times(&mut tape.replay(), 40), fresh);
        assert_eq!(times(&mut tape.replay(), 40), fresh);
    }
}
