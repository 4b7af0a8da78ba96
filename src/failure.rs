//! Failures: laws and failure streams in wall-clock time.
//!
//! A replication first fixes the machine's failure stream, then plays the job against it
//! (DESIGN.md, "the one idea the architecture rests on"). Streams are independent of the
//! job's policy, so every sweep point of one replication can replay the same stream.

pub mod law;
pub mod platform;
pub mod trace;

use rand_distr::{Distribution, Exp1};
use rand_pcg::Pcg64Mcg;

pub use law::Law;
pub use platform::{CohortStream, JobRenewalStream, NodeClass, NodeHeapStream, Start};

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

/// How failures renew (DESIGN.md, "node renewal").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Renewal {
    /// The whole job's failure law restarts at each failure (once the repair ends).
    Job,
    /// Only the failed node is replaced (new); the others keep ageing.
    Node,
}

/// How a per-node platform is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sampler {
    /// Cohort sampling: one inversion per failure, whatever the node count.
    Cohort,
    /// Every node on a heap: the reference implementation, O(nodes) per replication.
    PerNode,
}

/// The machine's failure model for one sweep point: which stream a replication draws.
#[derive(Debug, Clone, PartialEq)]
pub enum FailureModel {
    /// Poisson failures with the job's MTBF `mtbf_s` (s): the assumption of Young (1974)
    /// and Daly (2006). Any exponential model, job- or node-level, is this one.
    Poisson {
        /// The job's mean time between failures, M (s). Finite and > 0.
        mtbf_s: f64,
    },
    /// Job-level renewal: the job's lifetimes are iid from `law` (mean = the job's MTBF).
    JobRenewal {
        /// The job's lifetime law.
        law: Law,
        /// Whether the first lifetime is new or a stationary residual life.
        start: Start,
    },
    /// Per-node renewal over the job's nodes, in classes with their own laws.
    Platform {
        /// The node classes (counts and per-node laws).
        classes: Vec<NodeClass>,
        /// Node ages at the start.
        start: Start,
        /// How the superposition is sampled.
        sampler: Sampler,
    },
}

impl FailureModel {
    /// The job's mean time between failures (s): for a platform in equilibrium, the
    /// inverse of the summed node rates, 1/Σ(nᵢ/μᵢ).
    pub fn mtbf_s(&self) -> f64 {
        match self {
            FailureModel::Poisson { mtbf_s } => *mtbf_s,
            FailureModel::JobRenewal { law, .. } => law.mean_s(),
            FailureModel::Platform { classes, .. } => {
                1.0 / classes.iter().map(|c| c.nodes as f64 / c.law.mean_s()).sum::<f64>()
            }
        }
    }

    /// The model in a few words, for reports: `poisson`, `job-renewal weibull(shape 0.7)
    /// fresh`, `nodes 1024×weibull(shape 0.7) stationary`.
    pub fn describe(&self) -> String {
        let start = |s: &Start| match s {
            Start::Fresh => "fresh",
            Start::Stationary => "stationary",
        };
        match self {
            FailureModel::Poisson { .. } => "poisson".into(),
            FailureModel::JobRenewal { law, start: s } => format!("job-renewal {} {}", law.describe(), start(s)),
            FailureModel::Platform { classes, start: s, sampler } => {
                let parts: Vec<String> = classes.iter().map(|c| format!("{}×{}", c.nodes, c.law.describe())).collect();
                let how = match sampler {
                    Sampler::Cohort => "",
                    Sampler::PerNode => " per-node",
                };
                format!("nodes {} {}{how}", parts.join("+"), start(s))
            }
        }
    }

    /// Whether every failure time is exponential, so the job's stream is Poisson.
    pub fn is_poisson(&self) -> bool {
        match self {
            FailureModel::Poisson { .. } => true,
            FailureModel::JobRenewal { law, .. } => law.is_exponential(),
            FailureModel::Platform { classes, .. } => classes.iter().all(|c| c.law.is_exponential()),
        }
    }

    /// The stream of one replication, drawing from `rng` (its failure sub-stream); with
    /// repairs of `downtime_s` (s) for job-level renewal. Two calls with RNGs in the same
    /// state give identical streams.
    pub fn stream(&self, rng: Pcg64Mcg, downtime_s: f64) -> Stream {
        match self {
            FailureModel::Poisson { mtbf_s } => Stream::Exponential(ExponentialStream::new(*mtbf_s, rng)),
            FailureModel::JobRenewal { law, start } => {
                Stream::JobRenewal(JobRenewalStream::new(law.clone(), *start, downtime_s, rng))
            }
            FailureModel::Platform { classes, start, sampler: Sampler::Cohort } => {
                if self.is_poisson() {
                    // A superposition of Poisson processes is Poisson.
                    Stream::Exponential(ExponentialStream::new(self.mtbf_s(), rng))
                } else {
                    Stream::Cohort(CohortStream::new(classes.clone(), *start, rng))
                }
            }
            FailureModel::Platform { classes, start, sampler: Sampler::PerNode } => {
                Stream::NodeHeap(NodeHeapStream::new(classes.clone(), *start, rng))
            }
        }
    }
}

/// A concrete stream of any model, as an enum so the engine's hot loop is monomorphic.
#[derive(Debug, Clone)]
pub enum Stream {
    /// Poisson failures.
    Exponential(ExponentialStream),
    /// Job-level renewal.
    JobRenewal(JobRenewalStream),
    /// Per-node renewal by cohorts.
    Cohort(CohortStream),
    /// Per-node renewal node by node.
    NodeHeap(NodeHeapStream),
}

impl FailureStream for Stream {
    #[inline]
    fn next_failure(&mut self) -> Failure {
        match self {
            Stream::Exponential(s) => s.next_failure(),
            Stream::JobRenewal(s) => s.next_failure(),
            Stream::Cohort(s) => s.next_failure(),
            Stream::NodeHeap(s) => s.next_failure(),
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
