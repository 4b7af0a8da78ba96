//! Failures: laws and failure streams in wall-clock time.
//!
//! A replication first fixes the machine's failure stream, then plays the job against it
//! (DESIGN.md, "the one idea the architecture rests on"). Streams are independent of the
//! job's policy, so every sweep point of one replication can replay the same stream.

use rand_distr::{Distribution, Exp1};
use rand_pcg::Pcg64Mcg;

/// What a failure takes down. Only whole-job failures exist today; node, rack, switch,
/// power and system scopes arrive with platforms and topologies, so that multilevel
/// checkpointing can decide which level survives a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureScope {
    /// The failure interrupts the job as a whole (the job-level stream of MODELS.md §1).
    Job,
}

/// One failure event of the machine, in wall-clock time since the job started.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Failure {
    /// When the failure happens (s since the job started).
    pub time_s: f64,
    /// What it takes down.
    pub scope: FailureScope,
}

/// A failure stream: the machine's failures in increasing time order, in wall-clock time.
///
/// The engine pulls events one at a time; an event that arrives while the job is in a phase
/// that cannot fail is simply passed over (it does not strike the job later).
pub trait FailureStream {
    /// The next failure, at or after the previous one. Streams are infinite.
    fn next_failure(&mut self) -> Failure;
}

/// The failure law of the job's stream, as the scenario gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum FailureLaw {
    /// Poisson failures with mean time between failures `mtbf_s` (s): exponential
    /// inter-arrival times, the assumption of Young (1974) and Daly (2006).
    Exponential {
        /// The job's mean time between failures, M (s). Finite and > 0.
        mtbf_s: f64,
    },
}

impl FailureLaw {
    /// The job's mean time between failures (s).
    pub fn mtbf_s(&self) -> f64 {
        match self {
            FailureLaw::Exponential { mtbf_s } => *mtbf_s,
        }
    }

    /// The stream this law generates, drawing from `rng` (the replication's failure
    /// sub-stream). Two calls with RNGs in the same state give identical streams.
    pub fn stream(&self, rng: Pcg64Mcg) -> Stream {
        match self {
            FailureLaw::Exponential { mtbf_s } => Stream::Exponential(ExponentialStream::new(*mtbf_s, rng)),
        }
    }
}

/// A concrete stream of any law, as an enum so the engine's hot loop is monomorphic.
#[derive(Debug, Clone)]
pub enum Stream {
    /// Poisson failures.
    Exponential(ExponentialStream),
}

impl FailureStream for Stream {
    #[inline]
    fn next_failure(&mut self) -> Failure {
        match self {
            Stream::Exponential(s) => s.next_failure(),
        }
    }
}

/// Poisson failures: inter-arrival times Exp(1)·M.
///
/// Drawing unit-rate times and scaling by M keeps common random numbers even across
/// sweep points that change the MTBF.
#[derive(Debug, Clone)]
pub struct ExponentialStream {
    mtbf_s: f64,
    now_s: f64,
    rng: Pcg64Mcg,
}

impl ExponentialStream {
    /// A stream with mean time between failures `mtbf_s` (s), starting at time 0.
    pub fn new(mtbf_s: f64, rng: Pcg64Mcg) -> Self {
        ExponentialStream { mtbf_s, now_s: 0.0, rng }
    }
}

impl FailureStream for ExponentialStream {
    #[inline]
    fn next_failure(&mut self) -> Failure {
        let gap: f64 = Exp1.sample(&mut self.rng);
        self.now_s += gap * self.mtbf_s;
        Failure { time_s: self.now_s, scope: FailureScope::Job }
    }
}

/// A stream replaying a fixed list of failure times (s), then no more failures: for tests
/// and for checking the engine against hand-worked cases.
#[derive(Debug, Clone)]
pub struct ListStream {
    times_s: Vec<f64>,
    next: usize,
}

impl ListStream {
    /// Replays `times_s` (sorted, increasing), then reports no failure ever after.
    pub fn new(times_s: Vec<f64>) -> Self {
        ListStream { times_s, next: 0 }
    }
}

impl FailureStream for ListStream {
    fn next_failure(&mut self) -> Failure {
        let time_s = self.times_s.get(self.next).copied().unwrap_or(f64::INFINITY);
        self.next += 1;
        Failure { time_s, scope: FailureScope::Job }
    }
}
