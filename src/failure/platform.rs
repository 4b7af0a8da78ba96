//! Failure streams of non-exponential laws: job-level renewal, and per-node renewal over a
//! platform of nodes, sampled by cohorts (cost independent of the node count) or node by
//! node (the reference implementation).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use rand_distr::{Distribution, Exp1};
use rand_pcg::Pcg64Mcg;

use super::law::Law;
use super::{Failure, FailureScope, FailureStream};

/// Node ages when the job starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Start {
    /// Every node new (age 0): infant mortality shows when the hazard decreases.
    Fresh,
    /// Every node in equilibrium: residual lives from the equilibrium law F_e.
    Stationary,
}

/// One class of nodes of a platform: its count and per-node lifetime law.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeClass {
    /// Nodes of this class on the job.
    pub nodes: u64,
    /// The lifetime law of one node (mean = node MTBF).
    pub law: Law,
}

/// A time with a total order, for the heaps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct At(pub f64);

impl Eq for At {}

impl PartialOrd for At {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for At {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Job-level renewal: the job's lifetimes are iid from `law`; the first starts at time 0
/// (new, or as a residual life for a stationary start), each later one when the downtime
/// after a failure ends: t₁ = X₁, t_{k+1} = t_k + D + X_{k+1} (MODELS.md §2). The stream
/// does not know the job, so a failure the job ignores (during a phase that cannot fail)
/// also starts a downtime here, during which the stream is quiet (README, Semantics).
#[derive(Debug, Clone)]
pub struct JobRenewalStream {
    law: Law,
    start: Start,
    downtime_s: f64,
    last_s: Option<f64>,
    rng: Pcg64Mcg,
}

impl JobRenewalStream {
    /// The stream of `law`, with repairs of `downtime_s` (s) after each failure.
    pub fn new(law: Law, start: Start, downtime_s: f64, rng: Pcg64Mcg) -> Self {
        JobRenewalStream { law, start, downtime_s, last_s: None, rng }
    }
}

impl FailureStream for JobRenewalStream {
    fn next_failure(&mut self) -> Failure {
        let t = match self.last_s {
            None => match self.start {
                Start::Fresh => self.law.sample(&mut self.rng),
                Start::Stationary => self.law.sample_residual(&mut self.rng),
            },
            Some(t) => t + self.downtime_s + self.law.sample(&mut self.rng),
        };
        self.last_s = Some(t);
        Failure { time_s: t, scope: FailureScope::Job }
    }
}

/// Nodes of one class that share an age: `members` iid lives that have all survived to
/// an accumulated hazard `hazard` (of the law for a fresh cohort born at `birth_s`, of the
/// equilibrium law for a stationary one).
#[derive(Debug, Clone)]
struct Cohort {
    class: usize,
    /// `Some(birth)` for nodes new at `birth` (s); `None` for the stationary start cohort.
    birth_s: Option<f64>,
    members: u64,
    hazard: f64,
}

/// Per-node renewal by cohort sampling: each class starts as one cohort; when a member
/// fails it leaves the cohort and a new node (a cohort of one) replaces it. The first
/// failure among m lives with accumulated hazard Λ₀ is at Λ⁻¹(Λ₀ + E/m), E ~ Exp(1): one
/// draw by inversion per event, whatever m (MODELS.md §2). A replication costs
/// O(failures · log failures), independent of the node count.
#[derive(Debug, Clone)]
pub struct CohortStream {
    classes: Vec<NodeClass>,
    cohorts: Vec<Cohort>,
    heap: BinaryHeap<Reverse<(At, usize)>>,
    rng: Pcg64Mcg,
}

impl CohortStream {
    /// The superposed stream of `classes`, starting `start`.
    pub fn new(classes: Vec<NodeClass>, start: Start, rng: Pcg64Mcg) -> Self {
        let mut s = CohortStream { classes, cohorts: vec![], heap: BinaryHeap::new(), rng };
        for class in 0..s.classes.len() {
            let members = s.classes[class].nodes;
            if members == 0 {
                continue;
            }
            let birth_s = match start {
                Start::Fresh => Some(0.0),
                Start::Stationary => None,
            };
            s.cohorts.push(Cohort { class, birth_s, members, hazard: 0.0 });
            let idx = s.cohorts.len() - 1;
            s.schedule(idx);
        }
        s
    }

    /// Draws the cohort's next failure and puts it on the heap.
    fn schedule(&mut self, idx: usize) {
        let c = &mut self.cohorts[idx];
        let law = &self.classes[c.class].law;
        let t = if let (1, 0.0, Some(birth_s)) = (c.members, c.hazard, c.birth_s) {
            // A new node alone: its lifetime directly (cheaper than inverting Λ).
            birth_s + law.sample(&mut self.rng)
        } else {
            let e: f64 = Exp1.sample(&mut self.rng);
            c.hazard += e / c.members as f64;
            match c.birth_s {
                Some(b) => b + law.inv_cum_hazard(c.hazard),
                None => law.inv_equilibrium_cum_hazard(c.hazard),
            }
        };
        self.heap.push(Reverse((At(t), idx)));
    }
}

impl FailureStream for CohortStream {
    fn next_failure(&mut self) -> Failure {
        let Some(Reverse((At(t), idx))) = self.heap.pop() else {
            return Failure { time_s: f64::INFINITY, scope: FailureScope::Job };
        };
        let class = self.cohorts[idx].class;
        self.cohorts[idx].members -= 1;
        let replacement = Cohort { class, birth_s: Some(t), members: 1, hazard: 0.0 };
        if self.cohorts[idx].members == 0 {
            self.cohorts[idx] = replacement;
            self.schedule(idx);
        } else {
            self.schedule(idx);
            self.cohorts.push(replacement);
            self.schedule(self.cohorts.len() - 1);
        }
        Failure { time_s: t, scope: FailureScope::Job }
    }
}

/// Per-node renewal node by node: every node's next failure on a heap. O(nodes) to set up
/// and O(log nodes) per failure: the reference that [`CohortStream`] is tested against.
#[derive(Debug, Clone)]
pub struct NodeHeapStream {
    classes: Vec<NodeClass>,
    heap: BinaryHeap<Reverse<(At, usize)>>,
    rng: Pcg64Mcg,
}

impl NodeHeapStream {
    /// The superposed stream of every node of `classes`, starting `start`.
    pub fn new(classes: Vec<NodeClass>, start: Start, mut rng: Pcg64Mcg) -> Self {
        let mut heap = BinaryHeap::new();
        for (class, c) in classes.iter().enumerate() {
            for _ in 0..c.nodes {
                let t = match start {
                    Start::Fresh => c.law.sample(&mut rng),
                    Start::Stationary => c.law.sample_residual(&mut rng),
                };
                heap.push(Reverse((At(t), class)));
            }
        }
        NodeHeapStream { classes, heap, rng }
    }
}

impl FailureStream for NodeHeapStream {
    fn next_failure(&mut self) -> Failure {
        let Some(Reverse((At(t), class))) = self.heap.pop() else {
            return Failure { time_s: f64::INFINITY, scope: FailureScope::Job };
        };
        let next = t + self.classes[class].law.sample(&mut self.rng);
        self.heap.push(Reverse((At(next), class)));
        Failure { time_s: t, scope: FailureScope::Job }
    }
}
