//! Failures: laws and failure streams in wall-clock time.
//!
//! A replication first fixes the machine's failure stream, then plays the job against it
//! (DESIGN.md, "the one idea the architecture rests on"). Streams are independent of the
//! job's policy, so every sweep point of one replication can replay the same stream.

pub mod burst;
pub mod law;
pub mod platform;
pub mod tape;
pub mod topology;
pub mod trace;

use rand_distr::{Distribution, Exp1};
use rand_pcg::Pcg64Mcg;

pub use burst::{Burst, BurstStream};
pub use law::Law;
pub use platform::{CohortStream, JobRenewalStream, NodeClass, NodeHeapStream, Start};
pub use topology::{Level, Placement, Topology};

/// What a failure takes down, so that multilevel checkpointing can decide which level
/// survives it: domain events (rack, switch, power, system) carry their level, k-of-N events
/// and burst children their own scope; failures of the job's own nodes (or of the job as a
/// whole) are [`FailureScope::Job`] (which node failed is not recorded yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureScope {
    /// The failure interrupts the job as a whole (the job-level stream of MODELS.md §1).
    Job,
    /// A domain event (rack, switch, power, system) that holds some of the job's nodes.
    Domain(Level),
    /// An event that took k random nodes of the platform, one of them the job's.
    RandomNodes,
    /// A child in a failure burst.
    Burst,
}

/// Where a failure comes from, for the split of the failures and their cost by source
/// (`<name>-causes.csv`): the [`FailureScope`] of the event, with domain events by level.
/// The names are those of the scenario tables that give each source (`[failures]`,
/// `[failures.rack]`, …, `[failures.random]`, `[failures.burst]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cause {
    /// The job's own nodes, or the job as a whole (`[failures]`): [`FailureScope::Job`].
    Nodes,
    /// A rack event (`[failures.rack]`).
    Rack,
    /// A switch event (`[failures.switch]`).
    Switch,
    /// A power-domain event (`[failures.power]`).
    Power,
    /// A system-wide event (`[failures.system]`).
    System,
    /// A k-of-N event that took one of the job's nodes (`[failures.random]`).
    Random,
    /// A child in a failure burst (`[failures.burst]`); the burst's first event keeps its own
    /// cause.
    Burst,
}

impl Cause {
    /// How many causes there are (the length of per-cause arrays).
    pub const COUNT: usize = 7;

    /// Every cause, in the order of [`Cause::index`].
    pub const ALL: [Cause; Cause::COUNT] =
        [Cause::Nodes, Cause::Rack, Cause::Switch, Cause::Power, Cause::System, Cause::Random, Cause::Burst];

    /// The cause of a failure of scope `scope`.
    #[inline(always)]
    pub fn of(scope: FailureScope) -> Cause {
        match scope {
            FailureScope::Job => Cause::Nodes,
            FailureScope::Domain(Level::Rack) => Cause::Rack,
            FailureScope::Domain(Level::Switch) => Cause::Switch,
            FailureScope::Domain(Level::Power) => Cause::Power,
            FailureScope::Domain(Level::System) => Cause::System,
            FailureScope::RandomNodes => Cause::Random,
            FailureScope::Burst => Cause::Burst,
        }
    }

    /// The cause's place in per-cause arrays (0 to [`Cause::COUNT`] − 1).
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The cause's name in outputs: the scenario table that gives it (`nodes` for
    /// `[failures]`).
    pub fn name(self) -> &'static str {
        match self {
            Cause::Nodes => "nodes",
            Cause::Rack => "rack",
            Cause::Switch => "switch",
            Cause::Power => "power",
            Cause::System => "system",
            Cause::Random => "random",
            Cause::Burst => "burst",
        }
    }

    /// The cause named `name` ([`Cause::name`]).
    pub fn from_name(name: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| c.name() == name)
    }
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
    /// A real failure log replayed onto the job's nodes.
    Trace(TraceReplay),
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
            FailureModel::Trace(t) => t.mtbf_s(),
        }
    }

    /// The model in a few words, for reports: `exponential`, `job-renewal weibull(shape 0.7)
    /// fresh`, `nodes 1024×weibull(shape 0.7) stationary`, `nodes 1004×weibull(shape
    /// 0.7)+20×weibull(shape 0.7) stationary`.
    ///
    /// Only what tells two models apart: the node count where the job has more than one node
    /// (`nodes 1024×exponential`, but `exponential` for one node), and the start (`fresh`,
    /// `stationary`) only where some law has memory: an exponential law is memoryless, its
    /// failures the same whatever the nodes' ages. A Poisson stream at the job's MTBF and a
    /// one-node exponential platform both read `exponential` (the same stream); a job-level
    /// renewal model given an exponential law reads `job-renewal exponential`.
    pub fn describe(&self) -> String {
        let start = |s: &Start, memory: bool| match (memory, s) {
            (false, _) => "",
            (true, Start::Fresh) => " fresh",
            (true, Start::Stationary) => " stationary",
        };
        match self {
            FailureModel::Poisson { .. } => "exponential".into(),
            FailureModel::JobRenewal { law, start: s } => {
                format!("job-renewal {}{}", law.describe(), start(s, !law.is_exponential()))
            }
            FailureModel::Platform { classes, start: s, sampler } => {
                let how = match sampler {
                    Sampler::Cohort => "",
                    Sampler::PerNode => " per-node",
                };
                let start = start(s, !self.is_poisson());
                match classes.as_slice() {
                    [one] if one.nodes == 1 => format!("{}{start}{how}", one.law.describe()),
                    _ => {
                        let parts: Vec<String> =
                            classes.iter().map(|c| format!("{}×{}", c.nodes, c.law.describe())).collect();
                        format!("nodes {}{start}{how}", parts.join("+"))
                    }
                }
            }
            FailureModel::Trace(t) => t.describe(),
        }
    }

    /// Whether every failure time is exponential, so the job's stream is Poisson.
    pub fn is_poisson(&self) -> bool {
        match self {
            FailureModel::Poisson { .. } => true,
            FailureModel::JobRenewal { law, .. } => law.is_exponential(),
            FailureModel::Platform { classes, .. } => classes.iter().all(|c| c.law.is_exponential()),
            FailureModel::Trace(_) => false,
        }
    }

    /// The mean time between failures (s) of the model's stream when [`Self::stream`] makes
    /// it an [`ExponentialStream`] (Poisson failures, or a cohort platform all of whose
    /// classes fail exponentially: a superposition of Poisson processes is Poisson); `None`
    /// for every other stream. Callers that build the stream themselves from this get the
    /// same failure times as [`Self::stream`] without its enum.
    pub fn exponential_stream_mtbf_s(&self) -> Option<f64> {
        match self {
            FailureModel::Poisson { mtbf_s } => Some(*mtbf_s),
            FailureModel::Platform { sampler: Sampler::Cohort, .. } if self.is_poisson() => Some(self.mtbf_s()),
            _ => None,
        }
    }

    /// The stream of one replication, drawing from `rng` (its failure sub-stream); with
    /// repairs of `downtime_s` (s) for job-level renewal. Two calls with RNGs in the same
    /// state give identical streams.
    pub fn stream(&self, rng: Pcg64Mcg, downtime_s: f64) -> Stream {
        if let Some(mtbf_s) = self.exponential_stream_mtbf_s() {
            return Stream::Exponential(ExponentialStream::new(mtbf_s, rng));
        }
        match self {
            FailureModel::Poisson { mtbf_s } => Stream::Exponential(ExponentialStream::new(*mtbf_s, rng)),
            FailureModel::JobRenewal { law, start } => {
                Stream::JobRenewal(JobRenewalStream::new(law.clone(), *start, downtime_s, rng))
            }
            FailureModel::Platform { classes, start, sampler: Sampler::Cohort } => {
                Stream::Cohort(CohortStream::new(classes.clone(), *start, rng))
            }
            FailureModel::Platform { classes, start, sampler: Sampler::PerNode } => {
                Stream::NodeHeap(NodeHeapStream::new(classes.clone(), *start, rng))
            }
            FailureModel::Trace(t) => Stream::Trace(t.stream(rng)),
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
    /// Renewal events thinned by a hit probability.
    Thinned(ThinnedStream),
    /// Several streams merged in time order.
    Merged(MergedStream),
    /// A stream with Hawkes bursts on top.
    Burst(BurstStream),
    /// A failure log replayed.
    Trace(TraceStream),
}

impl FailureStream for Stream {
    #[inline]
    fn next_failure(&mut self) -> Failure {
        match self {
            Stream::Exponential(s) => s.next_failure(),
            Stream::JobRenewal(s) => s.next_failure(),
            Stream::Cohort(s) => s.next_failure(),
            Stream::NodeHeap(s) => s.next_failure(),
            Stream::Thinned(s) => s.next_failure(),
            Stream::Merged(s) => s.next_failure(),
            Stream::Burst(s) => s.next_failure(),
            Stream::Trace(s) => s.next_failure(),
        }
    }
}

/// Poisson failures: inter-arrival times Exp(1)·M.
///
/// Drawing unit-rate times and scaling by M keeps common random numbers even across
/// sweep points that change the MTBF.
///
/// The times are drawn a few at a time, in a loop of their own, into a small buffer the
/// engine then reads: its loop carries no generator state, which makes it faster (measured
/// by `cargo bench --bench engine`). Batches hold
/// [`ExponentialStream::AHEAD`] times; a stream for jobs that rarely fail can start with a
/// smaller one ([`ExponentialStream::with_first_batch`]) so that it does not draw eight times
/// to use one. Batching does not change the times: they come from the same generator in the
/// same order.
#[derive(Debug, Clone)]
pub struct ExponentialStream {
    mtbf_s: f64,
    /// Failure times drawn ahead (s); `ahead_s[next..]` are still to come. A batch fills the
    /// end of the array, so one comparison (`next` against its length) both finds the next
    /// time and tells when to draw more.
    ahead_s: [f64; ExponentialStream::AHEAD],
    next: usize,
    /// Size of the next batch, 1..=AHEAD ([`Self::AHEAD`] after the first).
    batch: usize,
    /// Time of the last failure drawn (s).
    now_s: f64,
    rng: Pcg64Mcg,
}

impl ExponentialStream {
    /// The largest batch of times drawn ahead.
    pub const AHEAD: usize = 8;

    /// What every failure of the stream takes down: the job.
    pub const SCOPE: FailureScope = FailureScope::Job;

    /// A stream with mean time between failures `mtbf_s` (s), starting at time 0.
    pub fn new(mtbf_s: f64, rng: Pcg64Mcg) -> Self {
        Self::with_first_batch(mtbf_s, rng, Self::AHEAD)
    }

    /// The same stream, drawing `first_batch` times (clamped to 1..=[`Self::AHEAD`]) at its
    /// start and [`Self::AHEAD`] at a time after that: for jobs expected to see about
    /// `first_batch` failures or fewer.
    pub fn with_first_batch(mtbf_s: f64, rng: Pcg64Mcg, first_batch: usize) -> Self {
        let batch = first_batch.clamp(1, Self::AHEAD);
        ExponentialStream { mtbf_s, ahead_s: [0.0; Self::AHEAD], next: Self::AHEAD, batch, now_s: 0.0, rng }
    }

    /// The failure times already drawn and not yet given, at most `max` of them, given now
    /// (consumed) as one slice: what [`FailureStream::next_failure`] would give next, without
    /// drawing (a [`Tape`](tape::Tape) records them at once).
    pub fn take_ahead(&mut self, max: usize) -> &[f64] {
        let start = self.next.min(Self::AHEAD);
        let end = start + max.min(Self::AHEAD - start);
        self.next = end;
        &self.ahead_s[start..end]
    }

    /// Draws the next batch of times and returns the first of them, consumed.
    // Marked cold although it runs every eighth pull: measured, the hint keeps the engine's
    // loop free of the batch loop's registers, which is what the batching is for.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> f64 {
        let start = Self::AHEAD - self.batch;
        // Gaps first, then their running sum: the generator and the sum then stay in
        // registers (the draw's rare slow branch calls libm, which would spill a sum kept
        // across it); the times are the same as those of one loop.
        let mut rng = self.rng.clone();
        if start == 0 {
            // A whole batch, written out: with no loop index or slice pointer to keep across
            // the slow branch's call, the fast branch of each draw keeps everything in
            // registers (measured: about a quarter fewer instructions per draw). Array
            // elements are evaluated in order, so the gaps are those of one loop.
            let gaps: [f64; Self::AHEAD] = [
                Exp1.sample(&mut rng),
                Exp1.sample(&mut rng),
                Exp1.sample(&mut rng),
                Exp1.sample(&mut rng),
                Exp1.sample(&mut rng),
                Exp1.sample(&mut rng),
                Exp1.sample(&mut rng),
                Exp1.sample(&mut rng),
            ];
            self.ahead_s = gaps;
        } else {
            self.batch = Self::AHEAD;
            for slot in self.ahead_s[start..].iter_mut() {
                *slot = Exp1.sample(&mut rng);
            }
        }
        self.rng = rng;
        let mut now_s = self.now_s;
        for slot in self.ahead_s[start..].iter_mut() {
            now_s += *slot * self.mtbf_s;
            *slot = now_s;
        }
        self.now_s = now_s;
        self.next = start + 1;
        self.ahead_s[start]
    }
}

impl FailureStream for ExponentialStream {
    #[inline]
    fn next_failure(&mut self) -> Failure {
        let time_s = match self.ahead_s.get(self.next) {
            Some(&time_s) => {
                self.next += 1;
                time_s
            }
            None => self.refill(),
        };
        Failure { time_s, scope: Self::SCOPE }
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

/// A renewal process of events, each of which strikes the job with probability `hit`
/// (events that take k random nodes of the platform; MODELS.md §3).
#[derive(Debug, Clone)]
pub struct ThinnedStream {
    law: Law,
    hit: f64,
    now_s: f64,
    /// Whether the next gap is a whole life of `law` (after an event, or from a fresh start)
    /// rather than the equilibrium residual life of a stationary start.
    started: bool,
    scope: FailureScope,
    rng: Pcg64Mcg,
}

impl ThinnedStream {
    /// Events with inter-arrival law `law`, kept with probability `hit`. The first event
    /// comes after a whole life that starts at time 0 ([`Start::Fresh`]) or after an
    /// equilibrium residual life ([`Start::Stationary`]); both draw the same for an
    /// exponential law.
    pub fn new(law: Law, hit: f64, start: Start, scope: FailureScope, rng: Pcg64Mcg) -> Self {
        ThinnedStream { law, hit, now_s: 0.0, started: start == Start::Fresh, scope, rng }
    }
}

impl FailureStream for ThinnedStream {
    fn next_failure(&mut self) -> Failure {
        if self.hit <= 0.0 {
            return Failure { time_s: f64::INFINITY, scope: self.scope };
        }
        loop {
            let gap =
                if self.started { self.law.sample(&mut self.rng) } else { self.law.sample_residual(&mut self.rng) };
            self.started = true;
            self.now_s += gap;
            if rand::RngExt::random::<f64>(&mut self.rng) < self.hit {
                return Failure { time_s: self.now_s, scope: self.scope };
            }
        }
    }
}

/// Several streams merged in time order, each part's failures reported with the part's
/// scope where it has one (domain events: [`FailureScope::Domain`]), so that failures carry
/// where they come from (DESIGN.md, "failure events carry their scope").
#[derive(Debug, Clone)]
pub struct MergedStream {
    /// Each part, its pending failure, and the scope its failures are reported with (`None`:
    /// the part's own).
    parts: Vec<(Stream, Failure, Option<FailureScope>)>,
}

impl MergedStream {
    /// The superposition of `parts`, each failure with the scope its part gives it.
    pub fn new(parts: Vec<Stream>) -> Self {
        Self::scoped(parts.into_iter().map(|s| (s, None)).collect())
    }

    /// The superposition of `parts`, the failures of a part with `Some(scope)` reported with
    /// that scope.
    pub fn scoped(parts: Vec<(Stream, Option<FailureScope>)>) -> Self {
        MergedStream {
            parts: parts
                .into_iter()
                .map(|(mut s, scope)| {
                    let head = s.next_failure();
                    (s, head, scope)
                })
                .collect(),
        }
    }
}

impl FailureStream for MergedStream {
    fn next_failure(&mut self) -> Failure {
        let i = (0..self.parts.len())
            .min_by(|&a, &b| self.parts[a].1.time_s.total_cmp(&self.parts[b].1.time_s))
            .expect("at least one part");
        let (stream, head, scope) = &mut self.parts[i];
        let out = Failure { scope: scope.unwrap_or(head.scope), ..*head };
        *head = stream.next_failure();
        out
    }
}

/// Domain events of one level: each domain's events are a renewal process of `law`
/// (per-domain lifetimes) and take every node of the domain.
#[derive(Debug, Clone, PartialEq)]
pub struct DomainEvents {
    /// The level.
    pub level: Level,
    /// Lifetime law of one domain (mean = per-domain MTBF).
    pub law: Law,
    /// The domains' ages at time 0: new ([`Start::Fresh`], a law with infant mortality
    /// fails early) or in equilibrium ([`Start::Stationary`]). Irrelevant for exponential
    /// laws.
    pub start: Start,
}

/// Events that take `nodes` random nodes of the platform at once, as a renewal process of
/// `law` over the whole platform.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomEvents {
    /// Nodes each event takes, k.
    pub nodes: u64,
    /// Law of the time between such events on the platform.
    pub law: Law,
    /// The process's age at time 0: new ([`Start::Fresh`], the first event after a whole
    /// life, so a law with infant mortality strikes early) or in equilibrium
    /// ([`Start::Stationary`], a residual life). Irrelevant for exponential laws.
    pub start: Start,
}

/// Sub-stream tags of the parts of a composite failure model (the node-level stream keeps
/// [`crate::runner::FAILURE_STREAM`], so adding domains does not move its draws).
const DOMAIN_TAG: u64 = 0x646f_6d00; // "dom"
const RANDOM_TAG: u64 = 0x726e_6400; // "rnd"
const BURST_TAG: u64 = 0x6272_7300; // "brs"
/// Work budget of the exact touched-rack distribution of a random placement (steps).
const EXACT_PLACEMENT_STEPS: f64 = 2e8;

/// Sub-stream of random placements: common to every sweep point of a replication.
pub const PLACEMENT_STREAM: u64 = 0x706c_6163; // "plac"

/// Everything that fails the job: its own nodes (or the job as a whole), domain events on
/// the topology it is placed on, random multi-node events, and bursts on top.
#[derive(Debug, Clone, PartialEq)]
pub struct Failures {
    /// Failures of the job's own nodes, or of the job as a whole.
    pub base: FailureModel,
    /// The platform, where domains or random events need one.
    pub topology: Option<Topology>,
    /// Where the job sits on the topology.
    pub placement: Placement,
    /// The job's nodes.
    pub job_nodes: u64,
    /// Domain events, by level.
    pub domains: Vec<DomainEvents>,
    /// Multi-node random events.
    pub random: Option<RandomEvents>,
    /// Bursts on top of everything.
    pub burst: Option<Burst>,
}

impl Failures {
    /// Failures of the job alone: no topology, domains or bursts.
    pub fn simple(base: FailureModel, job_nodes: u64) -> Self {
        Failures {
            base,
            topology: None,
            placement: Placement::Packed,
            job_nodes,
            domains: vec![],
            random: None,
            burst: None,
        }
    }

    /// The touched domains of a deterministic placement; `None` for random placements.
    pub fn fixed_touched(&self) -> Option<topology::Touched> {
        let t = self.topology.as_ref()?;
        match self.placement {
            Placement::Random => None,
            p => {
                let mut unused = <Pcg64Mcg as rand::SeedableRng>::seed_from_u64(0);
                Some(topology::touched(t, self.job_nodes, p, &mut unused))
            }
        }
    }

    /// Probability that a random multi-node event strikes the job.
    pub fn random_hit(&self) -> f64 {
        match (&self.random, &self.topology) {
            (Some(r), Some(t)) => topology::random_event_hit_probability(t.nodes(), self.job_nodes, r.nodes),
            _ => 0.0,
        }
    }

    /// The job's failure rate (1/s) in equilibrium with `touched` domains, bursts included:
    /// λ = (λ_nodes + Σ g_ℓ/μ_ℓ + p_hit/μ_k)/(1 − n) (MODELS.md §3).
    pub fn rate_per_s(&self, touched: &topology::Touched) -> f64 {
        self.rate_with_touched_per_s(|level| touched.of(level) as f64)
    }

    /// The rate (1/s) of the job's failures of `cause` with `touched` domains, before bursts
    /// (burst children have no rate of their own: 0): λ_nodes, g_ℓ/μ_ℓ for a level, p_hit/μ_k
    /// for k-of-N events (MODELS.md §3). Without bursts they add up to [`Self::rate_per_s`].
    pub fn cause_rate_per_s(&self, cause: Cause, touched: &topology::Touched) -> f64 {
        match cause {
            Cause::Nodes => 1.0 / self.base.mtbf_s(),
            Cause::Random => self.random.as_ref().map_or(0.0, |r| self.random_hit() / r.law.mean_s()),
            Cause::Burst => 0.0,
            level => self
                .domains
                .iter()
                .filter(|d| Cause::of(FailureScope::Domain(d.level)) == level)
                .map(|d| touched.of(d.level) as f64 / d.law.mean_s())
                .sum(),
        }
    }

    /// [`Self::rate_per_s`] with `touched(level)` domains of each level (a count, or its
    /// expectation: the rate is linear in them).
    fn rate_with_touched_per_s(&self, touched: impl Fn(Level) -> f64) -> f64 {
        let domains: f64 = self.domains.iter().map(|d| touched(d.level) / d.law.mean_s()).sum();
        let random = self.random.as_ref().map_or(0.0, |r| self.random_hit() / r.law.mean_s());
        let base = 1.0 / self.base.mtbf_s() + domains + random;
        base / (1.0 - self.burst.map_or(0.0, |b| b.branching))
    }

    /// The distribution of touched domains: one certain value for deterministic placements;
    /// for random placements the exact distribution of touched racks, where racks are the
    /// only domain level; `None` otherwise.
    pub fn touched_distribution(&self) -> Option<Vec<(f64, topology::Touched)>> {
        if let Some(t) = self.fixed_touched() {
            return Some(vec![(1.0, t)]);
        }
        let Some(topo) = &self.topology else {
            return Some(vec![(1.0, topology::Touched::default())]);
        };
        if self.domains.iter().any(|d| !matches!(d.level, Level::Rack | Level::System)) {
            return None;
        }
        // The exact recursion costs at most racks · nodes · nodes-per-rack steps: beyond a
        // budget there is no exact model (the MTBF stays exact: see `mtbf_s`).
        let steps = topo.racks as f64 * (self.job_nodes as f64 + 1.0) * (topo.nodes_per_rack as f64 + 1.0);
        if steps > EXACT_PLACEMENT_STEPS {
            return None;
        }
        let pmf = topology::touched_racks_pmf(topo.racks, topo.nodes_per_rack, self.job_nodes);
        Some(
            pmf.into_iter()
                .enumerate()
                .filter(|(_, p)| *p > 0.0)
                .map(|(g, p)| (p, topology::Touched { counts: [g as u64, 0, 0, 1] }))
                .collect(),
        )
    }

    /// The job's mean time between failures (s): 1/E\[λ\] over the placement's distribution.
    ///
    /// Exact for every placement. Where the touched-rack distribution is not available
    /// (random placements with switch or power domains, or too large a platform), E\[λ\]
    /// comes from the expected touched counts, since λ is linear in them: a domain of s
    /// nodes holds none of the job's n nodes with probability C(N − s, n)/C(N, n) (the
    /// hypergeometric miss of MODELS.md §3), so E\[g_ℓ\] = Σ_d (1 − C(N − s_d, n)/C(N, n))
    /// ([`topology::expected_touched_domains`]).
    pub fn mtbf_s(&self) -> f64 {
        match self.touched_distribution() {
            Some(dist) => 1.0 / dist.iter().map(|(p, t)| p * self.rate_per_s(t)).sum::<f64>(),
            None => {
                let topo = self.topology.as_ref().expect("only random placements on a topology lack a distribution");
                let expected = |level: Level| {
                    topo.racks_per(level)
                        .map_or(0.0, |per| topology::expected_touched_domains(topo, per, self.job_nodes))
                };
                1.0 / self.rate_with_touched_per_s(expected)
            }
        }
    }

    /// The job's failure rate (1/s) from each cause, indexed by [`Cause::index`], in
    /// expectation over the placement and in equilibrium (MODELS.md §3): λ_nodes, E\[g_ℓ\]/μ_ℓ
    /// for each domain level, p_hit/μ_k for k-of-N events, and for burst children the rest of
    /// λ = (Σ base rates)/(1 − n), i.e. (Σ base rates)·n/(1 − n). They add up to
    /// 1/[`Self::mtbf_s`] (to rounding). E\[g_ℓ\] is taken from the touched-rack distribution
    /// where there is one, else from [`topology::expected_touched_domains`], as in `mtbf_s`.
    pub fn expected_cause_rates_per_s(&self) -> [f64; Cause::COUNT] {
        let dist = self.touched_distribution();
        let expected = |level: Level| -> f64 {
            match (&dist, &self.topology) {
                (Some(d), _) => d.iter().map(|(p, t)| p * t.of(level) as f64).sum(),
                (None, Some(topo)) => topo
                    .racks_per(level)
                    .map_or(0.0, |per| topology::expected_touched_domains(topo, per, self.job_nodes)),
                (None, None) => 0.0,
            }
        };
        let mut rates = [0.0; Cause::COUNT];
        rates[Cause::Nodes.index()] = 1.0 / self.base.mtbf_s();
        for d in &self.domains {
            rates[Cause::of(FailureScope::Domain(d.level)).index()] += expected(d.level) / d.law.mean_s();
        }
        rates[Cause::Random.index()] = self.random.as_ref().map_or(0.0, |r| self.random_hit() / r.law.mean_s());
        let base: f64 = rates.iter().sum();
        if let Some(b) = self.burst {
            rates[Cause::Burst.index()] = base * b.branching / (1.0 - b.branching);
        }
        rates
    }

    /// Whether each cause's failures (indexed by [`Cause::index`]) arrive at their
    /// equilibrium rate ([`Self::expected_cause_rates_per_s`]) from time 0, so that the rate
    /// times a window's length is the count expected in it: where the law is exponential, or
    /// the renewal process starts stationary ([`Start::Stationary`]). A fresh start with
    /// memory does not (infant mortality strikes more often early, wear-out far less), nor
    /// does a replayed log; burst children follow their parents.
    pub fn stationary_causes(&self) -> [bool; Cause::COUNT] {
        let steady = |law: &Law, start: Start| law.is_exponential() || start == Start::Stationary;
        let mut steady_causes = [false; Cause::COUNT];
        steady_causes[Cause::Nodes.index()] = match &self.base {
            FailureModel::Poisson { .. } => true,
            FailureModel::JobRenewal { law, start } => steady(law, *start),
            FailureModel::Platform { start, .. } => self.base.is_poisson() || *start == Start::Stationary,
            FailureModel::Trace(_) => false,
        };
        for d in &self.domains {
            steady_causes[Cause::of(FailureScope::Domain(d.level)).index()] = steady(&d.law, d.start);
        }
        if let Some(r) = &self.random {
            steady_causes[Cause::Random.index()] = steady(&r.law, r.start);
        }
        let parents_steady = self.causes().iter().filter(|c| **c != Cause::Burst).all(|c| steady_causes[c.index()]);
        steady_causes[Cause::Burst.index()] = parents_steady;
        steady_causes
    }

    /// Whether each cause's failures (indexed by [`Cause::index`]) are a Poisson process of
    /// their own, independent of the job: exponential laws, and for the job's nodes a Poisson
    /// model. Burst children follow their parents (into the downtime and restarts after
    /// them), and a renewal's next failure follows its last, so neither is.
    pub fn memoryless_causes(&self) -> [bool; Cause::COUNT] {
        let mut memoryless = [false; Cause::COUNT];
        memoryless[Cause::Nodes.index()] = self.base.is_poisson();
        for d in &self.domains {
            memoryless[Cause::of(FailureScope::Domain(d.level)).index()] = d.law.is_exponential();
        }
        if let Some(r) = &self.random {
            memoryless[Cause::Random.index()] = r.law.is_exponential();
        }
        memoryless
    }

    /// The causes the job's failures come from, in [`Cause`] order: its nodes, each domain
    /// level, the k-of-N events, and burst children where bursts branch. A level whose domains
    /// hold none of the job's nodes in some placement is listed all the same (random
    /// placements touch it in some replications).
    pub fn causes(&self) -> Vec<Cause> {
        let mut causes = vec![Cause::Nodes];
        if self.topology.is_some() {
            causes.extend(self.domains.iter().map(|d| Cause::of(FailureScope::Domain(d.level))));
            if self.random.is_some() {
                causes.push(Cause::Random);
            }
        }
        if self.burst.is_some_and(|b| b.branching > 0.0) {
            causes.push(Cause::Burst);
        }
        causes.sort();
        causes.dedup();
        causes
    }

    /// Whether every part is Poisson: then the job's stream is Poisson given the placement.
    pub fn is_poisson(&self) -> bool {
        self.base.is_poisson()
            && self.domains.iter().all(|d| d.law.is_exponential())
            && self.random.as_ref().is_none_or(|r| r.law.is_exponential())
            && self.burst.is_none_or(|b| b.branching == 0.0)
    }

    /// Whether the job's failures are its base model's alone (no domains, random events or
    /// bursts), so that its stream is the base model's stream.
    fn is_base_only(&self) -> bool {
        self.domains.is_empty() && self.random.is_none() && self.burst.is_none()
    }

    /// The mean time between failures (s) of the job's stream when [`Self::stream`] makes it
    /// an [`ExponentialStream`] drawing from the replication's failure sub-stream
    /// ([`FailureModel::exponential_stream_mtbf_s`]); `None` otherwise.
    pub fn exponential_stream_mtbf_s(&self) -> Option<f64> {
        if self.is_base_only() { self.base.exponential_stream_mtbf_s() } else { None }
    }

    /// The law of the lifetime that starts after each failure (after the downtime, for
    /// job-level renewal) when every failure renews the job's whole failure stream: Poisson
    /// failures (an exponential law at the job's MTBF) or job-level renewal, with nothing else
    /// adding failures. `None` for every other model, where the time to the next failure
    /// depends on the ages of nodes that did not fail, or on a log.
    pub fn renewed_lifetime(&self) -> Option<Law> {
        if let Some(mtbf_s) = self.exponential_stream_mtbf_s() {
            return Law::exponential(mtbf_s).ok();
        }
        match &self.base {
            FailureModel::JobRenewal { law, .. } if self.is_base_only() => Some(law.clone()),
            _ => None,
        }
    }

    /// The stream of replication `rep` under master seed `seed`, with repairs of
    /// `downtime_s` (s) for job-level renewal.
    pub fn stream(&self, seed: u64, rep: u64, downtime_s: f64) -> Stream {
        use crate::runner::{FAILURE_STREAM, stream_rng};
        let base = self.base.stream(stream_rng(seed, rep, FAILURE_STREAM), downtime_s);
        if self.is_base_only() {
            return base;
        }
        let mut parts = vec![(base, None)];
        if let Some(topo) = &self.topology {
            let touched = match self.fixed_touched() {
                Some(t) => t,
                None => topology::touched(
                    topo,
                    self.job_nodes,
                    self.placement,
                    &mut stream_rng(seed, rep, PLACEMENT_STREAM),
                ),
            };
            for (i, d) in self.domains.iter().enumerate() {
                let g = touched.of(d.level);
                if g == 0 {
                    continue;
                }
                let rng = stream_rng(seed, rep, DOMAIN_TAG + i as u64);
                let events = if d.law.is_exponential() {
                    Stream::Exponential(ExponentialStream::new(d.law.mean_s() / g as f64, rng))
                } else {
                    let classes = vec![NodeClass { nodes: g, law: d.law.clone() }];
                    Stream::Cohort(CohortStream::new(classes, d.start, rng))
                };
                parts.push((events, Some(FailureScope::Domain(d.level))));
            }
            if let Some(r) = &self.random {
                let rng = stream_rng(seed, rep, RANDOM_TAG);
                parts.push((
                    Stream::Thinned(ThinnedStream::new(
                        r.law.clone(),
                        self.random_hit(),
                        r.start,
                        FailureScope::RandomNodes,
                        rng,
                    )),
                    None,
                ));
            }
        }
        // A lone part is the base stream (no domain touched, no k-of-N events): no scope to add.
        let merged = if parts.len() == 1 {
            parts.pop().expect("one part").0
        } else {
            Stream::Merged(MergedStream::scoped(parts))
        };
        match self.burst {
            Some(b) => Stream::Burst(BurstStream::new(merged, b, stream_rng(seed, rep, BURST_TAG))),
            None => merged,
        }
    }

    /// The model in a few words, for reports: the base model's ([`FailureModel::describe`]),
    /// then the placement on the topology, each domain level's law, the random k-of-N events'
    /// law (each with its start where the law has memory, as the nodes') and the bursts'
    /// branching ratio, `; `-separated: `nodes 256×exponential; packed on 64×32; rack
    /// exponential`, `…; rack weibull(shape 0.5) stationary`.
    pub fn describe(&self) -> String {
        let mut s = self.base.describe();
        if let Some(t) = self.topology.as_ref().filter(|_| !self.domains.is_empty() || self.random.is_some()) {
            s.push_str(&format!("; {} on {}×{}", self.placement.name(), t.racks, t.nodes_per_rack));
        }
        for d in &self.domains {
            s.push_str(&format!("; {} {}{}", d.level.name(), d.law.describe(), start_words(d.start, &d.law)));
        }
        if let Some(r) = &self.random {
            s.push_str(&format!("; {} random nodes {}{}", r.nodes, r.law.describe(), start_words(r.start, &r.law)));
        }
        if let Some(b) = &self.burst {
            s.push_str(&format!("; bursts n = {}", b.branching));
        }
        s
    }
}

/// ` fresh` or ` stationary` after a law with memory, nothing after an exponential law (its
/// failures are the same whatever the age): what [`Failures::describe`] says of a domain
/// level's or the random events' start.
fn start_words(start: Start, law: &Law) -> &'static str {
    match start {
        _ if law.is_exponential() => "",
        Start::Fresh => " fresh",
        Start::Stationary => " stationary",
    }
}

/// A real failure log replayed onto the job: the job's nodes are nodes of the logged
/// system (the first n, or n drawn anew in every replication), and each replication starts
/// at a uniformly random offset into the log (a windowed bootstrap), so intervals reflect the
/// log's variability. After the log's end it wraps to its start or has no more failures.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceReplay {
    /// The log file, as resolved.
    pub file: std::path::PathBuf,
    /// The system replayed.
    pub system: String,
    /// Nodes of the logged system.
    pub system_nodes: u64,
    /// The job's nodes (≤ the system's).
    pub job_nodes: u64,
    /// Which of the system's nodes the job holds.
    pub placement: Placement,
    /// What happens after the log's end.
    pub end: trace::TraceEnd,
    /// The log's failures: (time since the system's first failure s, node), by time.
    pub events: std::sync::Arc<Vec<(f64, u64)>>,
    /// Length of one pass of the log (s): the replay period when wrapping.
    pub period_s: f64,
    /// The lowest and highest node numbers as the log wrote them, where some are beyond the
    /// system's declared size and were folded onto it (node mod `system_nodes`): LANL's
    /// system 14 declares 128 nodes and numbers them 129 … 255.
    pub folded: Option<(u64, u64)>,
    /// Malformed lines of the whole log left out (`failures.trace.malformed = "skip"`; 0
    /// otherwise): reports say how many ([`TraceReplay::describe`]).
    pub skipped_lines: usize,
}

impl TraceReplay {
    /// The job's MTBF (s): the log's span over the failures that hit the job's nodes (for
    /// random placements, the expected count n/N of all).
    pub fn mtbf_s(&self) -> f64 {
        let hits = match self.placement {
            Placement::Random => self.events.len() as f64 * self.job_nodes as f64 / self.system_nodes as f64,
            _ => self.events.iter().filter(|(_, node)| *node < self.job_nodes).count() as f64,
        };
        if hits > 0.0 { self.period_s / hits } else { f64::INFINITY }
    }

    /// Why this replay is probably not what was meant, if it looks so: a packed job whose
    /// nodes 0 … n − 1 see none of the log's failures (typically a log that numbers its
    /// nodes from 1, so node 0 never fails), and the run would see no failures at all.
    pub fn warning(&self) -> Option<String> {
        if self.placement == Placement::Random || self.events.is_empty() || self.mtbf_s().is_finite() {
            return None;
        }
        let lowest = self.events.iter().map(|(_, node)| *node).min().expect("events");
        let held = match self.job_nodes {
            1 => "node 0 (packed: node numbers start at 0) has".to_string(),
            n => format!("nodes 0 … {} (packed: node numbers start at 0) have", n - 1),
        };
        let advice = match self.folded {
            Some((low, high)) => format!(
                "the log numbers this system's nodes {low} … {high}, beyond its {} declared nodes, and they are folded \
                 onto it (node mod {}): give the job more nodes, or set job.placement = \"random\"",
                self.system_nodes, self.system_nodes
            ),
            None => {
                "if the log numbers its nodes from 1, renumber them from 0, or set job.placement = \"random\"".into()
            }
        };
        Some(format!(
            "system {} of {}: the job's {held} none of the log's {} \
             failures, whose lowest node is {lowest}, so the run sees no failures; {advice}",
            self.system,
            self.file.display(),
            self.events.len()
        ))
    }

    /// The replay of one replication: its offset and (for random placements) its nodes
    /// drawn from `rng`.
    pub fn stream(&self, mut rng: Pcg64Mcg) -> TraceStream {
        let offset_s = rand::RngExt::random::<f64>(&mut rng) * self.period_s;
        let times: Vec<f64> = match self.placement {
            Placement::Random => {
                let nodes = topology::sample_distinct(self.system_nodes, self.job_nodes, &mut rng);
                self.events.iter().filter(|(_, n)| nodes.binary_search(n).is_ok()).map(|(t, _)| *t).collect()
            }
            _ => self.events.iter().filter(|(_, n)| *n < self.job_nodes).map(|(t, _)| *t).collect(),
        };
        let next = times.partition_point(|t| *t < offset_s);
        TraceStream { times, next, pass: 0, offset_s, period_s: self.period_s, end: self.end }
    }

    /// The replay in words, for reports: with the malformed lines skipped, if any.
    pub fn describe(&self) -> String {
        let end = match self.end {
            trace::TraceEnd::Wrap => "wrap",
            trace::TraceEnd::Censor => "censor",
        };
        let skipped = match self.skipped_lines {
            0 => String::new(),
            1 => "; 1 malformed line of the log skipped".to_string(),
            k => format!("; {k} malformed lines of the log skipped"),
        };
        format!(
            "trace system {} ({} of {} nodes, {}, {end}{skipped})",
            self.system,
            self.job_nodes,
            self.system_nodes,
            self.placement.name()
        )
    }
}

/// One replication's replay of a failure log.
#[derive(Debug, Clone)]
pub struct TraceStream {
    times: Vec<f64>,
    next: usize,
    pass: u64,
    offset_s: f64,
    period_s: f64,
    end: trace::TraceEnd,
}

impl FailureStream for TraceStream {
    fn next_failure(&mut self) -> Failure {
        if self.next == self.times.len() {
            match self.end {
                trace::TraceEnd::Censor => return Failure { time_s: f64::INFINITY, scope: FailureScope::Job },
                // Without failures, or without a span to repeat them over (every failure at
                // one instant), wrapping acts as censoring (`trace::window` does the same):
                // a zero period would replay them at one time for ever.
                trace::TraceEnd::Wrap if self.times.is_empty() || self.period_s.is_nan() || self.period_s <= 0.0 => {
                    return Failure { time_s: f64::INFINITY, scope: FailureScope::Job };
                }
                trace::TraceEnd::Wrap => {
                    self.next = 0;
                    self.pass += 1;
                }
            }
        }
        let t = self.times[self.next] + self.pass as f64 * self.period_s - self.offset_s;
        self.next += 1;
        Failure { time_s: t, scope: FailureScope::Job }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// [`ExponentialStream::take_ahead`] gives the times [`FailureStream::next_failure`]
    /// would give next, as many as are drawn and asked for, and the stream goes on after them.
    #[test]
    fn taking_ahead_gives_the_next_failures() {
        let rng = || crate::runner::stream_rng(3, 4, 0);
        let fresh: Vec<f64> = {
            let mut s = ExponentialStream::new(50.0, rng());
            (0..40).map(|_| s.next_failure().time_s).collect()
        };
        for (pulls, max) in [(1, 100), (1, 3), (3, 0), (8, 5), (9, 7), (5, 1), (0, 4)] {
            let mut s = ExponentialStream::new(50.0, rng());
            let mut got: Vec<f64> = (0..pulls).map(|_| s.next_failure().time_s).collect();
            let ahead = s.take_ahead(max).to_vec();
            // Only what the batch holds: the rest of the 8 drawn with the pulls' last batch.
            let held = (ExponentialStream::AHEAD - pulls % ExponentialStream::AHEAD) % ExponentialStream::AHEAD;
            let held = if pulls == 0 { 0 } else { held };
            assert_eq!(ahead.len(), held.min(max), "pulls {pulls}, max {max}");
            got.extend(ahead);
            got.extend((got.len()..40).map(|_| s.next_failure().time_s));
            assert_eq!(got, fresh, "pulls {pulls}, max {max}");
        }
    }

    /// The failure model in words says what tells models apart: no `nodes 1×` for one node,
    /// no `stationary`/`fresh` for memoryless (exponential) laws, both where they matter.
    #[test]
    fn describe_names_nodes_and_start_only_where_they_matter() {
        let exp = Law::exponential(3600.0).unwrap();
        let weibull = Law::weibull(3600.0, 0.7).unwrap();
        let platform = |classes: Vec<NodeClass>, start, sampler| FailureModel::Platform { classes, start, sampler };
        let one = |law: &Law, nodes| vec![NodeClass { nodes, law: law.clone() }];
        let cases = [
            (platform(one(&exp, 1), Start::Stationary, Sampler::Cohort), "exponential"),
            (platform(one(&exp, 1), Start::Fresh, Sampler::Cohort), "exponential"),
            (FailureModel::Poisson { mtbf_s: 3600.0 }, "exponential"),
            (platform(one(&exp, 1), Start::Fresh, Sampler::PerNode), "exponential per-node"),
            (platform(one(&exp, 1024), Start::Stationary, Sampler::Cohort), "nodes 1024×exponential"),
            (platform(one(&weibull, 1), Start::Stationary, Sampler::Cohort), "weibull(shape 0.7) stationary"),
            (platform(one(&weibull, 1), Start::Fresh, Sampler::PerNode), "weibull(shape 0.7) fresh per-node"),
            (
                platform(one(&weibull, 1024), Start::Stationary, Sampler::Cohort),
                "nodes 1024×weibull(shape 0.7) stationary",
            ),
            (
                platform(
                    vec![NodeClass { nodes: 1000, law: exp.clone() }, NodeClass { nodes: 24, law: exp.clone() }],
                    Start::Fresh,
                    Sampler::Cohort,
                ),
                "nodes 1000×exponential+24×exponential",
            ),
            // One class with memory: the start matters to the whole platform.
            (
                platform(
                    vec![NodeClass { nodes: 1, law: exp.clone() }, NodeClass { nodes: 1, law: weibull.clone() }],
                    Start::Fresh,
                    Sampler::Cohort,
                ),
                "nodes 1×exponential+1×weibull(shape 0.7) fresh",
            ),
            (
                FailureModel::JobRenewal { law: weibull.clone(), start: Start::Fresh },
                "job-renewal weibull(shape 0.7) fresh",
            ),
            (FailureModel::JobRenewal { law: exp.clone(), start: Start::Fresh }, "job-renewal exponential"),
        ];
        for (model, want) in cases {
            assert_eq!(model.describe(), want, "{model:?}");
        }
        // Domains, random k-of-N events and bursts follow the same rule.
        let topology = Topology { racks: 64, nodes_per_rack: 32, racks_per_switch: None, racks_per_power: None };
        let mut f = Failures::simple(platform(one(&exp, 256), Start::Stationary, Sampler::Cohort), 256);
        f.topology = Some(topology);
        f.domains = vec![
            DomainEvents { level: Level::Rack, law: exp.clone(), start: Start::Fresh },
            DomainEvents { level: Level::Rack, law: weibull.clone(), start: Start::Stationary },
            DomainEvents { level: Level::Rack, law: weibull.clone(), start: Start::Fresh },
        ];
        f.random = Some(RandomEvents { nodes: 4, law: exp.clone(), start: Start::Fresh });
        f.burst = Some(Burst { branching: 0.5, decay_s: 60.0 });
        assert_eq!(
            f.describe(),
            "nodes 256×exponential; packed on 64×32; rack exponential; rack weibull(shape 0.7) stationary; \
             rack weibull(shape 0.7) fresh; 4 random nodes exponential; bursts n = 0.5"
        );
        let plain = Failures::simple(platform(one(&exp, 1), Start::Stationary, Sampler::Cohort), 1);
        assert_eq!(plain.describe(), "exponential");
        f.domains.clear();
        for (start, words) in [(Start::Fresh, " fresh"), (Start::Stationary, " stationary")] {
            f.random = Some(RandomEvents { nodes: 4, law: weibull.clone(), start });
            let want = format!(
                "nodes 256×exponential; packed on 64×32; 4 random nodes weibull(shape 0.7){words}; bursts n = 0.5"
            );
            assert_eq!(f.describe(), want);
        }
    }

    #[test]
    fn a_wrapped_log_without_a_span_ends_instead_of_repeating_one_instant() {
        let replay = |period_s: f64| TraceReplay {
            skipped_lines: 0,
            file: "log.csv".into(),
            system: "s".into(),
            system_nodes: 4,
            job_nodes: 4,
            placement: Placement::Packed,
            end: trace::TraceEnd::Wrap,
            events: std::sync::Arc::new(vec![(5.0, 0), (5.0, 1)]),
            period_s,
            folded: None,
        };
        let mut stream = replay(0.0).stream(Pcg64Mcg::seed_from_u64(1));
        let times: Vec<f64> = (0..4).map(|_| stream.next_failure().time_s).collect();
        assert!(times.iter().filter(|t| t.is_finite()).count() <= 2, "{times:?}");
        assert_eq!(times[3], f64::INFINITY);
        // With a span, the log repeats.
        let mut stream = replay(10.0).stream(Pcg64Mcg::seed_from_u64(1));
        assert!((0..6).all(|_| stream.next_failure().time_s.is_finite()));
    }

    /// A replayed log's MTBF is its period over the failures the job expects in it: its own
    /// nodes' when packed, n/N of all of them when the job's nodes are drawn at random.
    #[test]
    fn a_replays_mtbf_counts_the_failures_its_nodes_see() {
        let replay = |placement: Placement| TraceReplay {
            skipped_lines: 0,
            file: "log.csv".into(),
            system: "s".into(),
            system_nodes: 8,
            job_nodes: 2,
            placement,
            end: trace::TraceEnd::Wrap,
            events: std::sync::Arc::new(vec![(1.0, 0), (2.0, 5), (3.0, 1), (4.0, 7)]),
            period_s: 100.0,
            folded: None,
        };
        // Nodes 0 and 1 fail twice in 100 s; 2 random nodes of 8 see a quarter of 4 failures.
        assert_eq!(replay(Placement::Packed).mtbf_s(), 50.0);
        assert_eq!(replay(Placement::Random).mtbf_s(), 100.0);
    }
}
