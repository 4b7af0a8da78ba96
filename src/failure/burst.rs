//! Failure bursts: a Hawkes process with an exponential kernel on top of any base stream
//! (MODELS.md §3), simulated exactly by its cluster representation: every event, from the
//! base stream or itself a child, has Poisson(n) children at Exp(β) delays.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand_distr::{Distribution, Exp1, Poisson};
use rand_pcg::Pcg64Mcg;

use super::platform::At;
use super::{Failure, FailureScope, FailureStream, Stream};

/// Burst parameters: branching ratio n = α/β < 1 and mean child delay 1/β (s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Burst {
    /// Mean number of children per event, n ∈ [0, 1): mean cluster size 1/(1 − n).
    pub branching: f64,
    /// Mean delay of a child after its parent, 1/β (s), > 0.
    pub decay_s: f64,
}

/// A base stream with Hawkes children: the long-run rate is the base rate / (1 − n).
#[derive(Debug, Clone)]
pub struct BurstStream {
    base: Box<Stream>,
    next_base: Failure,
    children: BinaryHeap<Reverse<At>>,
    offspring: Option<Poisson<f64>>,
    decay_s: f64,
    rng: Pcg64Mcg,
}

impl BurstStream {
    /// Bursts of `burst` on top of `base`, drawing children from `rng`.
    pub fn new(mut base: Stream, burst: Burst, rng: Pcg64Mcg) -> Self {
        let next_base = base.next_failure();
        let offspring = if burst.branching > 0.0 { Poisson::new(burst.branching).ok() } else { None };
        BurstStream {
            base: Box::new(base),
            next_base,
            children: BinaryHeap::new(),
            offspring,
            decay_s: burst.decay_s,
            rng,
        }
    }
}

impl FailureStream for BurstStream {
    fn next_failure(&mut self) -> Failure {
        let child_first = self.children.peek().is_some_and(|Reverse(At(c))| *c < self.next_base.time_s);
        let event = if child_first {
            let Reverse(At(t)) = self.children.pop().expect("peeked");
            Failure { time_s: t, scope: FailureScope::Burst }
        } else {
            let e = self.next_base;
            self.next_base = self.base.next_failure();
            e
        };
        if let (Some(p), true) = (&self.offspring, event.time_s.is_finite()) {
            let kids = p.sample(&mut self.rng) as u64;
            for _ in 0..kids {
                let delay: f64 = Exp1.sample(&mut self.rng);
                self.children.push(Reverse(At(event.time_s + delay * self.decay_s)));
            }
        }
        event
    }
}
