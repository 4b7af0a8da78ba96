//! Correlated failures (MODELS.md §3): nodes in racks, racks in switch and power domains,
//! domain events that take every node of their domain, events that take k random nodes of
//! the platform, and the job's placement on the topology.

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

/// The machine's layout: `racks` racks of `nodes_per_rack` nodes, racks grouped into
/// switch and power domains of consecutive racks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// Racks on the platform (≥ 1).
    pub racks: u64,
    /// Nodes per rack (≥ 1).
    pub nodes_per_rack: u64,
    /// Racks per switch domain, if switches fail as a domain.
    pub racks_per_switch: Option<u64>,
    /// Racks per power domain, if power fails as a domain.
    pub racks_per_power: Option<u64>,
}

impl Topology {
    /// Nodes on the platform.
    pub fn nodes(&self) -> u64 {
        self.racks * self.nodes_per_rack
    }

    /// Racks per domain of `level`; `None` when the topology does not define that level.
    pub fn racks_per(&self, level: Level) -> Option<u64> {
        match level {
            Level::Rack => Some(1),
            Level::Switch => self.racks_per_switch,
            Level::Power => self.racks_per_power,
            Level::System => Some(self.racks),
        }
    }

    /// Domains of `level` on the platform (the last one may hold fewer racks).
    pub fn domains(&self, level: Level) -> Option<u64> {
        self.racks_per(level).map(|per| self.racks.div_ceil(per))
    }
}

/// A level of failure domains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// One rack.
    Rack,
    /// The racks behind one switch.
    Switch,
    /// The racks on one power domain.
    Power,
    /// The whole platform.
    System,
}

impl Level {
    /// Every level, from the smallest domain.
    pub const ALL: [Level; 4] = [Level::Rack, Level::Switch, Level::Power, Level::System];

    /// The level's name in scenario files (`[failures.rack]`).
    pub fn name(&self) -> &'static str {
        match self {
            Level::Rack => "rack",
            Level::Switch => "switch",
            Level::Power => "power",
            Level::System => "system",
        }
    }
}

/// How the job's nodes sit on the topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Fewest racks: the job fills racks one after another.
    Packed,
    /// Round-robin over the racks: node i in rack i mod racks.
    Spread,
    /// n distinct nodes drawn uniformly from the platform, anew in every replication.
    Random,
}

impl Placement {
    /// The placement's name in scenario files.
    pub fn name(&self) -> &'static str {
        match self {
            Placement::Packed => "packed",
            Placement::Spread => "spread",
            Placement::Random => "random",
        }
    }
}

/// The domains of every level that hold at least one of the job's nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Touched {
    /// Touched domains per level, indexed like [`Level::ALL`].
    pub counts: [u64; 4],
}

impl Touched {
    /// Touched domains of `level`.
    pub fn of(&self, level: Level) -> u64 {
        self.counts[Level::ALL.iter().position(|l| *l == level).expect("a level")]
    }
}

/// The touched domains of a job of `nodes` nodes placed `placement` on `topology`; random
/// placements draw from `rng`. `nodes` must not exceed the platform.
pub fn touched(topology: &Topology, nodes: u64, placement: Placement, rng: &mut Pcg64Mcg) -> Touched {
    let r = topology.nodes_per_rack;
    let racks: Vec<u64> = match placement {
        Placement::Packed => (0..nodes.div_ceil(r)).collect(),
        Placement::Spread => (0..nodes.min(topology.racks)).collect(),
        Placement::Random => {
            // The nodes come in increasing order, so their racks do too: dedup leaves each
            // touched rack once, in O(nodes) whatever the number of racks.
            let mut racks: Vec<u64> = sample_distinct(topology.nodes(), nodes, rng).iter().map(|n| n / r).collect();
            racks.dedup();
            racks
        }
    };
    let mut t = Touched::default();
    for (i, level) in Level::ALL.iter().enumerate() {
        if let Some(per) = topology.racks_per(*level) {
            let mut domains: Vec<u64> = racks.iter().map(|rack| rack / per).collect();
            domains.dedup();
            t.counts[i] = domains.len() as u64;
        }
    }
    t
}

/// `k` distinct integers drawn uniformly from 0..n, in increasing order (Floyd's algorithm:
/// k draws, O(k log k), whatever n).
pub fn sample_distinct(n: u64, k: u64, rng: &mut Pcg64Mcg) -> Vec<u64> {
    debug_assert!(k <= n);
    let mut chosen = std::collections::BTreeSet::new();
    for j in (n - k)..n {
        let t = rng.random_range(0..=j);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    chosen.into_iter().collect()
}

/// P(an event that takes `k` random nodes of a platform of `platform` nodes hits one of the
/// job's `nodes` nodes) = 1 − C(N−n, k)/C(N, k) (MODELS.md §3), as a stable product.
pub fn random_event_hit_probability(platform: u64, nodes: u64, k: u64) -> f64 {
    if k + nodes > platform {
        return 1.0;
    }
    let miss: f64 = (0..k).map(|i| (platform - nodes - i) as f64 / (platform - i) as f64).product();
    1.0 - miss
}

/// The expected number of domains of `per` consecutive racks (the last one may hold fewer)
/// that hold at least one of `nodes` nodes drawn uniformly without replacement from
/// `topology`: Σ_d (1 − C(N − s_d, n)/C(N, n)) over the domains' node counts s_d, each term
/// [`random_event_hit_probability`] (the same hypergeometric miss, MODELS.md §3), evaluated
/// over the shorter of its two equal products.
pub fn expected_touched_domains(topology: &Topology, per: u64, nodes: u64) -> f64 {
    let platform = topology.nodes();
    // C(N − s, n)/C(N, n) = C(N − n, s)/C(N, s): the product runs over min(s, n) terms.
    let touched = |racks: u64| {
        let size = racks * topology.nodes_per_rack;
        if size < nodes {
            random_event_hit_probability(platform, nodes, size)
        } else {
            random_event_hit_probability(platform, size, nodes)
        }
    };
    let (full, rest) = (topology.racks / per, topology.racks % per);
    full as f64 * touched(per) + if rest > 0 { touched(rest) } else { 0.0 }
}

/// The distribution of the number of racks touched by `nodes` nodes drawn uniformly without
/// replacement from `racks` racks of `per_rack` nodes: P(g = j) for j = 0..=racks.
///
/// Exact and without alternating sums: P(g = j) = C(racks, j) · C(j·n, N)/C(racks·n, N) ·
/// w_j(N), where w_j(m) is the probability that m nodes drawn from j given racks touch every
/// one of them, w_j(m) = Σ_{c ≥ 1} Hyp(c; m, n, j·n) · w_{j−1}(m − c) (c of them in the j-th
/// rack, hypergeometric), w_0(0) = 1. Every term is a probability, so nothing cancels. The
/// hypergeometric terms run from their mode outwards by their ratio and stop once below
/// 1e-18 of the mode's. Cost about racks · nodes · √per_rack steps (at most racks · nodes ·
/// per_rack).
///
/// Results are remembered (the last [`PMF_MEMO_SIZE`] platforms and jobs): a sweep asks for
/// the same one at every point, several times per point (MTBF, model, report).
pub fn touched_racks_pmf(racks: u64, per_rack: u64, nodes: u64) -> Vec<f64> {
    let key = (racks, per_rack, nodes);
    let memo = || PMF_MEMO.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, pmf)) = memo().iter().find(|(k, _)| *k == key) {
        return pmf.clone();
    }
    let pmf = compute_touched_racks_pmf(racks, per_rack, nodes);
    let mut memo = memo();
    if memo.len() >= PMF_MEMO_SIZE {
        memo.remove(0);
    }
    memo.push((key, pmf.clone()));
    pmf
}

/// How many results [`touched_racks_pmf`] remembers.
pub const PMF_MEMO_SIZE: usize = 16;

/// Remembered results of [`touched_racks_pmf`], oldest first.
#[allow(clippy::type_complexity)]
static PMF_MEMO: std::sync::Mutex<Vec<((u64, u64, u64), Vec<f64>)>> = std::sync::Mutex::new(Vec::new());

/// [`touched_racks_pmf`] without the memo.
fn compute_touched_racks_pmf(racks: u64, per_rack: u64, nodes: u64) -> Vec<f64> {
    let (racks, per_rack, nodes) = (racks as usize, per_rack as usize, nodes as usize);
    let mut pmf = vec![0.0; racks + 1];
    if nodes == 0 {
        pmf[0] = 1.0;
        return pmf;
    }
    let total = racks * per_rack;
    assert!(nodes <= total, "{nodes} nodes do not fit in {racks} racks of {per_rack}");
    // ln(i!) by summing logs: exact enough (relative 1e-15 per term) and O(1) per binomial.
    let mut ln_fact = vec![0.0; total + 1];
    for i in 1..ln_fact.len() {
        ln_fact[i] = ln_fact[i - 1] + (i as f64).ln();
    }
    let ln_choose = |n: usize, k: usize| -> f64 {
        if k > n { f64::NEG_INFINITY } else { ln_fact[n] - ln_fact[k] - ln_fact[n - k] }
    };
    // w[m] = w_j(m) for the racks so far; m ≤ nodes.
    let mut w = vec![0.0; nodes + 1];
    w[0] = 1.0;
    for (j, p_j) in pmf.iter_mut().enumerate().skip(1) {
        let pool = j * per_rack;
        let rest = pool - per_rack;
        let mut next = vec![0.0; nodes + 1];
        for (m, slot) in next.iter_mut().enumerate().take(nodes.min(pool) + 1).skip(1) {
            // c in this rack: at least one, and m − c must fit in the other racks.
            let (c_lo, c_hi) = (1.max(m.saturating_sub(rest)), per_rack.min(m));
            if c_lo > c_hi {
                continue;
            }
            let mode = ((m + 1) * (per_rack + 1) / (pool + 2)).clamp(c_lo, c_hi);
            let ln_hyp = |c: usize| ln_choose(per_rack, c) + ln_choose(rest, m - c) - ln_choose(pool, m);
            let peak = ln_hyp(mode).exp();
            // Hyp(c + 1)/Hyp(c) = (n − c)(m − c) / ((c + 1)(rest − m + c + 1)).
            let up = |c: usize| ((per_rack - c) * (m - c)) as f64 / ((c + 1) * (rest + c + 1 - m)) as f64;
            let mut sum = peak * w[m - mode];
            let mut term = peak;
            for c in mode..c_hi {
                term *= up(c);
                if term < PMF_TAIL * peak {
                    break;
                }
                sum += term * w[m - c - 1];
            }
            term = peak;
            for c in (c_lo..mode).rev() {
                term /= up(c);
                if term < PMF_TAIL * peak {
                    break;
                }
                sum += term * w[m - c];
            }
            *slot = sum;
        }
        w = next;
        if nodes <= pool {
            let ln_within = ln_choose(racks, j) + ln_choose(pool, nodes) - ln_choose(total, nodes);
            *p_j = ln_within.exp() * w[nodes];
        }
    }
    pmf
}

/// Hypergeometric terms below this fraction of the mode's are left out of
/// [`touched_racks_pmf`] (at most per_rack of them, each ≤ 1: under 1e-15 in all).
const PMF_TAIL: f64 = 1e-18;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn topo() -> Topology {
        Topology { racks: 8, nodes_per_rack: 4, racks_per_switch: Some(3), racks_per_power: None }
    }

    #[test]
    fn placements_touch_the_expected_domains() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let packed = touched(&topo(), 9, Placement::Packed, &mut rng);
        assert_eq!((packed.of(Level::Rack), packed.of(Level::Switch), packed.of(Level::System)), (3, 1, 1));
        let spread = touched(&topo(), 9, Placement::Spread, &mut rng);
        assert_eq!((spread.of(Level::Rack), spread.of(Level::Switch)), (8, 3));
        assert_eq!(spread.of(Level::Power), 0, "no power level in this topology");
        let one = touched(&topo(), 32, Placement::Random, &mut rng);
        assert_eq!(one.of(Level::Rack), 8);
    }

    #[test]
    fn distinct_samples_are_distinct_and_uniform() {
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let mut counts = [0u64; 10];
        let trials = 100_000;
        for _ in 0..trials {
            let s = sample_distinct(10, 3, &mut rng);
            assert_eq!(s.len(), 3);
            assert!(s.windows(2).all(|w| w[0] < w[1]));
            s.iter().for_each(|&x| counts[x as usize] += 1);
        }
        // Each value with probability 3/10: within 4 SE.
        let p = 0.3;
        let se = (p * (1.0 - p) / trials as f64).sqrt();
        for c in counts {
            assert!((c as f64 / trials as f64 - p).abs() < 4.0 * se, "{counts:?}");
        }
    }

    #[test]
    fn touched_racks_pmf_is_a_distribution_and_matches_sampling() {
        let pmf = touched_racks_pmf(8, 4, 9);
        assert!((pmf.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(pmf[0], 0.0);
        assert_eq!(pmf[1] + pmf[2], 0.0, "9 nodes need at least 3 racks of 4");
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let trials = 200_000;
        let mut seen = [0u64; 9];
        for _ in 0..trials {
            seen[touched(&topo(), 9, Placement::Random, &mut rng).of(Level::Rack) as usize] += 1;
        }
        for (j, &p) in pmf.iter().enumerate() {
            let se = (p * (1.0 - p) / trials as f64).sqrt().max(1e-9);
            let got = seen[j] as f64 / trials as f64;
            assert!((got - p).abs() < 4.0 * se + 1e-12, "g = {j}: {got} vs {p}");
        }
    }

    /// The previous recursion, rack by rack over (nodes left, racks touched): slower
    /// (racks² · nodes · per_rack) but independent of the one under test.
    fn pmf_by_rack_and_touched(racks: usize, per_rack: usize, nodes: usize) -> Vec<f64> {
        let ln_fact: Vec<f64> = (0..=racks * per_rack)
            .scan(0.0, |acc, i| {
                *acc += if i > 0 { (i as f64).ln() } else { 0.0 };
                Some(*acc)
            })
            .collect();
        let ln_choose =
            |n: usize, k: usize| if k > n { f64::NEG_INFINITY } else { ln_fact[n] - ln_fact[k] - ln_fact[n - k] };
        let mut state = vec![vec![0.0; racks + 1]; nodes + 1];
        state[nodes][0] = 1.0;
        for i in 0..racks {
            let pool = (racks - i) * per_rack;
            let mut next = vec![vec![0.0; racks + 1]; nodes + 1];
            for (m, row) in state.iter().enumerate() {
                for (j, &p) in row.iter().enumerate().filter(|(_, p)| **p > 0.0) {
                    for c in 0..=per_rack.min(m) {
                        let ln_q = ln_choose(per_rack, c) + ln_choose(pool - per_rack, m - c) - ln_choose(pool, m);
                        if ln_q > f64::NEG_INFINITY {
                            next[m - c][j + usize::from(c > 0)] += p * ln_q.exp();
                        }
                    }
                }
            }
            state = next;
        }
        state[0].clone()
    }

    #[test]
    fn touched_racks_pmf_matches_the_rack_by_rack_recursion() {
        /// Largest difference of a probability allowed: rounding only.
        const TOL: f64 = 1e-12;
        for racks in 1..=7_u64 {
            for per_rack in 1..=6_u64 {
                for nodes in 0..=racks * per_rack {
                    let got = compute_touched_racks_pmf(racks, per_rack, nodes);
                    assert_eq!(touched_racks_pmf(racks, per_rack, nodes), got, "the memo gives what it computes");
                    let want = pmf_by_rack_and_touched(racks as usize, per_rack as usize, nodes as usize);
                    let worst = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                    assert!(worst < TOL, "{racks} racks × {per_rack}, {nodes} nodes: {got:?} vs {want:?}");
                }
            }
        }
    }

    #[test]
    fn touched_racks_pmf_at_machine_scale_has_the_exact_mean() {
        // E[g] = racks · (1 − C((racks − 1)·n, N)/C(racks·n, N)): each rack missed with the
        // probability that all N nodes fall elsewhere.
        /// Relative tolerance on the total and the mean: rounding of ~10⁵ terms.
        const RTOL: f64 = 1e-9;
        for (racks, per_rack, nodes) in [(74_u64, 128_u64, 1000_u64), (74, 128, 9000), (200, 64, 3000), (10, 1000, 40)]
        {
            let pmf = touched_racks_pmf(racks, per_rack, nodes);
            let total: f64 = pmf.iter().sum();
            assert!((total - 1.0).abs() < RTOL, "{racks}×{per_rack}, {nodes}: Σ = {total}");
            let mean: f64 = pmf.iter().enumerate().map(|(g, p)| g as f64 * p).sum();
            let miss: f64 =
                (0..nodes).map(|i| ((racks - 1) * per_rack - i) as f64 / (racks * per_rack - i) as f64).product();
            let exact = racks as f64 * (1.0 - miss);
            assert!((mean - exact).abs() < RTOL * exact, "{racks}×{per_rack}, {nodes}: mean {mean} vs {exact}");
        }
    }

    #[test]
    fn hit_probability_is_hypergeometric() {
        // One node taken: n/N. All nodes taken: 1.
        assert!((random_event_hit_probability(100, 10, 1) - 0.1).abs() < 1e-15);
        assert_eq!(random_event_hit_probability(100, 10, 95), 1.0);
        // 1 − C(90, 2)/C(100, 2) = 1 − (90·89)/(100·99).
        let exact = 1.0 - (90.0 * 89.0) / (100.0 * 99.0);
        assert!((random_event_hit_probability(100, 10, 2) - exact).abs() < 1e-15);
    }
}
