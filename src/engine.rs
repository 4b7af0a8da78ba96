//! How time advances: the job's state machine (compute, checkpoint write, failure, downtime,
//! restart attempts) played against a failure stream in wall-clock time.
//!
//! The engine is pure: no I/O, no globals; randomness only arrives through the
//! [`FailureStream`] it is handed.

/// Whether a phase of the job (checkpoint write, restart) can be struck by a failure.
///
/// Where a phase cannot fail, a failure that arrives during it is ignored: it does not strike
/// the job later (DESIGN.md, "Semantics the engine must make explicit").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exposure {
    /// A failure during the phase strikes the job.
    CanFail,
    /// Failures during the phase are ignored.
    CannotFail,
}

/// Whether a checkpoint is written after the last compute chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FinalCheckpoint {
    /// The last chunk ends with a checkpoint write, like every other chunk.
    Written,
    /// The job ends as soon as its last compute chunk completes.
    Skipped,
}

/// What a failure does to the job (DESIGN.md, "on failure").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnFailure {
    /// Roll back to the last checkpoint and continue until the work is done (Young, Daly).
    Restart,
    /// The batch job ends at its first failure, once its restart has been paid for (the
    /// usage-domain model of Graziani, Lusch & Messer 2026, MODELS.md §5).
    EndJob,
}

/// The job being simulated: its work and its fixed costs, every duration in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Failure-free compute needed to finish, W (s). Finite and > 0.
    pub work_s: f64,
    /// Blocking checkpoint write cost, δ (s). ≥ 0.
    pub checkpoint_s: f64,
    /// Restart (state read) cost, R (s). ≥ 0.
    pub restart_s: f64,
    /// Downtime before each restart attempt, D (s); failures are ignored during it. ≥ 0.
    pub downtime_s: f64,
    /// Whether the last chunk ends with a checkpoint.
    pub final_checkpoint: FinalCheckpoint,
    /// Whether failures can strike checkpoint writes.
    pub checkpoint_exposure: Exposure,
    /// Whether failures can strike restarts (a struck restart starts over, after downtime).
    pub restart_exposure: Exposure,
    /// What a failure does to the job.
    pub on_failure: OnFailure,
}

use crate::failure::{Cause, FailureStream, Stream};
use crate::policy::{ChunkLayout, Policy, Progress};

/// What happened in one replication: the wall time and the events behind it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Record {
    /// Wall-clock time to finish the work (s).
    pub wall_s: f64,
    /// Failures that struck the job (during compute, a checkpoint write or a restart).
    pub failures: u64,
    /// Failures that struck a checkpoint write (the write and the chunk before it are lost).
    pub failures_during_checkpoint: u64,
    /// Restart attempts struck by a failure (each one starts over, after downtime).
    pub failed_restarts: u64,
    /// Machine failures that arrived while the job could not fail, and were ignored.
    pub ignored_failures: u64,
    /// Checkpoints written to completion.
    pub checkpoints: u64,
    /// Restarts completed.
    pub restarts: u64,
    /// Time lost to failures (s): compute and writes since the last completed checkpoint,
    /// up to each failure that struck them.
    pub lost_s: f64,
    /// Time spent recovering (s): downtime and restart attempts, failed ones included.
    pub recovery_s: f64,
}

/// Where the engine charges each struck failure and its cost, by cause: `()` charges
/// nothing (a run whose failures all have one cause: the record's totals say it all, and the
/// engine's loop stays as fast as without causes), [`ByCause`] splits them.
pub trait CauseLedger {
    /// A failure of `cause` struck the job, losing `lost_s` (s) of compute and writes (0
    /// for one that strikes a restart).
    fn struck(&mut self, cause: Cause, lost_s: f64);
    /// The recovery after a failure of `cause` took `recovery_s` (s), up to the next failure
    /// (one that strikes the restart) or the restart's end.
    fn recovered(&mut self, cause: Cause, recovery_s: f64);
    /// A failure of `cause` (already counted) also lost `lost_s` (s) of work committed at a
    /// level it destroyed (two-level checkpointing: a level-2 rollback past level-1
    /// checkpoints).
    fn rolled_back(&mut self, cause: Cause, lost_s: f64);
}

impl CauseLedger for () {
    #[inline(always)]
    fn struck(&mut self, _: Cause, _: f64) {}
    #[inline(always)]
    fn recovered(&mut self, _: Cause, _: f64) {}
    #[inline(always)]
    fn rolled_back(&mut self, _: Cause, _: f64) {}
}

/// The struck failures of one replication and their cost split by where they come from,
/// indexed by [`Cause::index`]: each failure is charged the time it lost and the recovery
/// that follows it, up to the next failure (one that strikes the restart) or the restart's
/// end. The causes' failures add up to the record's `failures`, their times to its `lost_s`
/// and `recovery_s` (up to rounding).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ByCause(pub [CauseTally; Cause::COUNT]);

impl ByCause {
    /// What the failures of `cause` cost.
    pub fn of(&self, cause: Cause) -> &CauseTally {
        &self.0[cause.index()]
    }
}

impl CauseLedger for ByCause {
    #[inline(always)]
    fn struck(&mut self, cause: Cause, lost_s: f64) {
        let t = &mut self.0[cause.index()];
        t.failures += 1;
        t.lost_s += lost_s;
    }
    #[inline(always)]
    fn recovered(&mut self, cause: Cause, recovery_s: f64) {
        self.0[cause.index()].recovery_s += recovery_s;
    }
    #[inline(always)]
    fn rolled_back(&mut self, cause: Cause, lost_s: f64) {
        self.0[cause.index()].lost_s += lost_s;
    }
}

/// What the failures of one cause cost in a replication (an entry of [`ByCause`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CauseTally {
    /// Failures of this cause that struck the job.
    pub failures: u64,
    /// Time they lost (s): compute and writes since the last completed checkpoint.
    pub lost_s: f64,
    /// Time spent recovering from them (s): the downtime and restart attempts after each, up
    /// to the next failure or the restart's end.
    pub recovery_s: f64,
}

impl Record {
    /// Whether the job ended without finishing its work (only with [`OnFailure::EndJob`]).
    pub fn ended_by_failure(&self, job: &Job) -> bool {
        job.on_failure == OnFailure::EndJob && self.failures > 0
    }
}

/// The engine gave up on a replication.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// More failures struck than the limit allows: the job would (practically) never finish.
    #[error(
        "the job was struck by more than {limit} failures in one replication (wall time so far \
         {wall_s:.6e} s): it practically never finishes; shorten the interval, the costs or the work"
    )]
    TooManyFailures {
        /// The limit that was hit.
        limit: u64,
        /// Wall-clock time reached when the engine stopped (s).
        wall_s: f64,
    },
    /// The job ignored more failures than [`Limits::max_ignored`] in one replication: its
    /// downtime or a phase that cannot fail is long against the MTBF, and the replication
    /// practically never ends.
    #[error(
        "the job passed over more than {limit} failures in one replication during its downtime or phases that \
         cannot fail (wall time so far {wall_s:.6e} s): it practically never finishes; shorten the interval, the \
         costs or the work"
    )]
    TooManyIgnoredFailures {
        /// The limit that was hit.
        limit: u64,
        /// Wall-clock time reached when the engine stopped (s).
        wall_s: f64,
    },
    /// The replication's wall time, or its overhead over the work, is too large to summarise:
    /// the summaries add its square, which overflows.
    #[error(
        "a replication took {wall_s:.6e} s of wall time for {work_s:.6e} s of work: the wall time or the \
         overhead (wall / work − 1) is too large to summarise (its square overflows); give the job's durations \
         comparable scales"
    )]
    OutOfRange {
        /// The replication's wall-clock time (s).
        wall_s: f64,
        /// The job's work (s).
        work_s: f64,
    },
}

/// Limits that keep a hopeless replication from running forever.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// The most failures that may strike the job in one replication.
    pub max_failures: u64,
    /// The most failures the job may ignore in one replication (during downtime, and during
    /// restarts or writes that cannot fail): a 10 min restart that cannot fail at a 10 ms
    /// MTBF passes over 60,000 of them, so without this bound a replication that the struck
    /// failures would stop after 10⁸ could run for 6·10¹² draws. Ignoring 10⁸ failures takes
    /// about as long as being struck by 10⁸.
    pub max_ignored: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_failures: 100_000_000, max_ignored: 100_000_000 }
    }
}

/// The job's view of the stream: the pending failure and the counters it feeds.
struct Clock<'a, S: FailureStream, L: CauseLedger> {
    stream: &'a mut S,
    ledger: &'a mut L,
    /// Time of the next failure not yet consumed (s).
    next_s: f64,
    /// Where it comes from.
    next_cause: Cause,
    rec: Record,
    limits: Limits,
}

impl<'a, S: FailureStream, L: CauseLedger> Clock<'a, S, L> {
    #[inline(always)]
    fn new(stream: &'a mut S, ledger: &'a mut L, limits: Limits) -> Self {
        let next = stream.next_failure();
        let (next_s, next_cause) = (next.time_s, Cause::of(next.scope));
        Clock { stream, ledger, next_s, next_cause, rec: Record::default(), limits }
    }

    /// Consumes the pending failure.
    #[inline(always)]
    fn advance(&mut self) {
        let next = self.stream.next_failure();
        (self.next_s, self.next_cause) = (next.time_s, Cause::of(next.scope));
    }

    /// Passes over every failure before `until_s`: the job cannot fail until then.
    #[inline(always)]
    fn ignore_until(&mut self, until_s: f64) -> Result<(), EngineError> {
        while self.next_s < until_s {
            self.rec.ignored_failures += 1;
            if self.rec.ignored_failures > self.limits.max_ignored {
                return Err(EngineError::TooManyIgnoredFailures {
                    limit: self.limits.max_ignored,
                    wall_s: self.next_s,
                });
            }
            self.advance();
        }
        Ok(())
    }

    /// The pending failure strikes the job now; returns its time and cause.
    #[inline(always)]
    fn strike(&mut self) -> Result<(f64, Cause), EngineError> {
        let (at_s, cause) = (self.next_s, self.next_cause);
        self.rec.failures += 1;
        if self.rec.failures > self.limits.max_failures {
            return Err(EngineError::TooManyFailures { limit: self.limits.max_failures, wall_s: at_s });
        }
        self.advance();
        Ok((at_s, cause))
    }

    /// The pending failure strikes the job's compute or write, which lose the time since
    /// `since_s` (the chunk's start); returns its time and cause.
    #[inline(always)]
    fn strike_losing(&mut self, since_s: f64) -> Result<(f64, Cause), EngineError> {
        let (at_s, cause) = self.strike()?;
        self.rec.lost_s += at_s - since_s;
        self.ledger.struck(cause, at_s - since_s);
        Ok((at_s, cause))
    }

    /// Recovery after a failure of `cause` at `failed_at_s`: downtime (failures ignored),
    /// then restart attempts until one completes. Returns the time the job resumes computing.
    #[inline(always)]
    fn recover(&mut self, job: &Job, failed_at_s: f64, cause: Cause) -> Result<f64, EngineError> {
        let restart_s = [job.restart_s; 2];
        Ok(self.recover_from_level(job, failed_at_s, cause, |_| CheckpointLevel::One, restart_s)?.0)
    }

    /// [`Self::recover`] where each failure destroys the checkpoints below its level
    /// (`level_of`) and a restart from level l takes `restart_s[l]` (s): returns the time the
    /// job resumes and the level it restarts from, the highest of the failures that struck
    /// (a level-2 failure during a level-1 restart makes it a level-2 one).
    #[inline(always)]
    fn recover_from_level(
        &mut self,
        job: &Job,
        failed_at_s: f64,
        cause: Cause,
        level_of: impl Fn(Cause) -> CheckpointLevel,
        restart_s: [f64; 2],
    ) -> Result<(f64, CheckpointLevel, Cause), EngineError> {
        let (done_s, level, by) = self.retry_restarts(job, failed_at_s, cause, level_of, restart_s)?;
        self.rec.recovery_s += done_s - failed_at_s;
        Ok((done_s, level, by))
    }

    /// Downtime then restart attempts from `failed_at_s` until one completes; its end, its
    /// level (as in [`Self::recover_from_level`]) and the cause of the first failure of that
    /// level. Each failure (the first, of `cause`, then those that strike a restart) is
    /// charged the recovery time up to the next.
    #[inline(always)]
    fn retry_restarts(
        &mut self,
        job: &Job,
        failed_at_s: f64,
        mut cause: Cause,
        level_of: impl Fn(Cause) -> CheckpointLevel,
        restart_s: [f64; 2],
    ) -> Result<(f64, CheckpointLevel, Cause), EngineError> {
        let mut t = failed_at_s;
        let (mut level, mut by) = (level_of(cause), cause);
        loop {
            let restart_at_s = t + job.downtime_s;
            self.ignore_until(restart_at_s)?;
            let done_s = restart_at_s + restart_s[level as usize];
            match job.restart_exposure {
                Exposure::CanFail if self.next_s < done_s => {
                    self.rec.failed_restarts += 1;
                    let (at_s, next_cause) = self.strike()?;
                    self.ledger.recovered(cause, at_s - t);
                    self.ledger.struck(next_cause, 0.0);
                    (t, cause) = (at_s, next_cause);
                    if level_of(next_cause) > level {
                        (level, by) = (level_of(next_cause), next_cause);
                    }
                }
                _ => {
                    self.ignore_until(done_s)?;
                    self.rec.restarts += 1;
                    self.ledger.recovered(cause, done_s - t);
                    return Ok((done_s, level, by));
                }
            }
        }
    }
}

/// The checkpoint level a failure destroys, in two-level checkpointing (MODELS.md §4; Moody
/// et al., SC'10, the SCR model): a level-1 failure (a node's) leaves every checkpoint
/// readable, a level-2 one (a rack, a switch, the system) only those of level 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckpointLevel {
    /// Rolls back to the last checkpoint of any level (node-local or partner copies survive).
    One = 0,
    /// Rolls back to the last level-2 checkpoint (the parallel file system's).
    Two = 1,
}

/// Two-level checkpointing (MODELS.md §4): of the job's checkpoints, every `every`-th and
/// the final one are written to level 2, at `checkpoint_s` = C₂ instead of the job's δ = C₁;
/// a failure of a level-2 cause rolls back to the last level-2 checkpoint and restarts in
/// `restart_s` = R₂ instead of the job's R = R₁. Every duration in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct TwoLevel {
    /// n ≥ 1: checkpoints n, 2n, 3n, … (and the final one) are level-2 ones (0 is taken
    /// as 1; scenario files refuse it).
    pub every: u64,
    /// Level-2 write cost C₂ (s). ≥ 0.
    pub checkpoint_s: f64,
    /// Restart cost from level 2, R₂ (s). ≥ 0.
    pub restart_s: f64,
    /// Which causes destroy level-1 checkpoints, by [`Cause::index`].
    pub level2: [bool; Cause::COUNT],
}

impl TwoLevel {
    /// Level 2 for every cause but the job's own nodes (`[failures]`): a node's loss is
    /// survived by its partner's copy, a rack, switch, power or system event, a k-of-N event
    /// or a burst child is not.
    pub const ALL_BUT_NODES: [bool; Cause::COUNT] = {
        let mut set = [true; Cause::COUNT];
        set[Cause::Nodes as usize] = false;
        set
    };

    /// The level of a failure of `cause`.
    #[inline(always)]
    pub fn level_of(&self, cause: Cause) -> CheckpointLevel {
        if self.level2[cause.index()] { CheckpointLevel::Two } else { CheckpointLevel::One }
    }

    /// Whether chunk `k` (from 0) of `count` ends with a level-2 checkpoint: every n-th, and
    /// the last.
    pub fn is_level2_chunk(&self, k: u64, count: u64) -> bool {
        k + 1 == count || (k + 1).is_multiple_of(self.every.max(1))
    }

    /// The write (s) that ends chunk `k` (from 0) of `count` of `job`: C₂ for a level-2
    /// checkpoint, δ for a level-1 one, none after the last chunk where `job` skips its
    /// final checkpoint.
    pub fn write_s(&self, job: &Job, k: u64, count: u64) -> Option<f64> {
        match (k + 1 == count, job.final_checkpoint) {
            (true, FinalCheckpoint::Skipped) => None,
            _ if self.is_level2_chunk(k, count) => Some(self.checkpoint_s),
            _ => Some(job.checkpoint_s),
        }
    }
}

/// Plays `job` with two-level checkpoints ([`TwoLevel`]) every chunk of `layout` against
/// `stream`, one chunk at a time (the per-segment path): chunk k (from 1) ends with a
/// level-2 write of C₂ where k is a multiple of n or the last chunk (unless the final
/// checkpoint is skipped), else with a level-1 write of δ. A level-1 failure redoes the
/// chunk it struck after a restart of R; a level-2 failure (or a level-2 failure striking
/// that restart) goes back to the chunk after the last level-2 checkpoint after a restart of
/// R₂. Downtime, the exposure switches and `on_failure` act as in [`play`], which this is
/// with n = 1, C₂ = δ and R₂ = R.
///
/// The record's `lost_s` counts, for a level-2 rollback, the compute of the chunks done again
/// as well; their level-1 writes were written to completion and stay in `checkpoints`, so
/// wall = W + the completed writes' time + `lost_s` + `recovery_s` as on the other paths.
pub fn play_two_level<S: FailureStream>(
    job: &Job,
    two: &TwoLevel,
    layout: &ChunkLayout,
    stream: &mut S,
    limits: Limits,
) -> Result<Record, EngineError> {
    play_two_level_by_cause(job, two, layout, stream, limits, &mut ())
}

/// [`play_two_level`], charging each struck failure and its cost to its cause in `ledger`; the
/// compute a level-2 rollback loses goes to the failure that made the recovery a level-2 one.
pub fn play_two_level_by_cause<S: FailureStream, L: CauseLedger>(
    job: &Job,
    two: &TwoLevel,
    layout: &ChunkLayout,
    stream: &mut S,
    limits: Limits,
    ledger: &mut L,
) -> Result<Record, EngineError> {
    let mut clock = Clock::new(stream, ledger, limits);
    // The next chunk to run (from 0), and the first chunk after the last level-2 checkpoint;
    // the compute of the chunks since then (s), lost to a level-2 rollback.
    let (mut k, mut safe_k) = (0_u64, 0_u64);
    let mut since_safe_s = 0.0_f64;
    let mut t = 0.0_f64;
    while k < layout.count {
        let compute_s = if k + 1 == layout.count { layout.last_s } else { layout.full_s };
        let level2 = two.is_level2_chunk(k, layout.count);
        let write_s = two.write_s(job, k, layout.count);
        let chunk_start_s = t;
        let mut struck = clock.next_s < t + compute_s;
        if !struck {
            t += compute_s;
            if let Some(write_s) = write_s {
                let write_end_s = t + write_s;
                match job.checkpoint_exposure {
                    Exposure::CanFail if clock.next_s < write_end_s => {
                        clock.rec.failures_during_checkpoint += 1;
                        struck = true;
                    }
                    Exposure::CanFail => {}
                    Exposure::CannotFail => clock.ignore_until(write_end_s)?,
                }
                if !struck {
                    t = write_end_s;
                    clock.rec.checkpoints += 1;
                }
            }
        }
        if struck {
            let (at_s, cause) = clock.strike_losing(chunk_start_s)?;
            let restart_s = [job.restart_s, two.restart_s];
            let (done_s, level, by) = clock.recover_from_level(job, at_s, cause, |c| two.level_of(c), restart_s)?;
            t = done_s;
            if level == CheckpointLevel::Two {
                k = safe_k;
                clock.rec.lost_s += since_safe_s;
                clock.ledger.rolled_back(by, since_safe_s);
                since_safe_s = 0.0;
            }
            if job.on_failure == OnFailure::EndJob {
                break;
            }
            continue;
        }
        k += 1;
        since_safe_s += compute_s;
        if level2 {
            safe_k = k;
            since_safe_s = 0.0;
        }
    }
    clock.rec.wall_s = t;
    Ok(clock.rec)
}

/// Plays `job` under any `policy` against `stream`, one segment at a time: the general path
/// (random costs and adaptive policies build on it) and the reference for [`play_periodic`].
pub fn play<P: Policy, S: FailureStream>(
    job: &Job,
    policy: &P,
    stream: &mut S,
    limits: Limits,
) -> Result<Record, EngineError> {
    play_by_cause(job, policy, stream, limits, &mut ())
}

/// [`play`], charging each struck failure and its cost to its cause in `ledger`.
pub fn play_by_cause<P: Policy, S: FailureStream, L: CauseLedger>(
    job: &Job,
    policy: &P,
    stream: &mut S,
    limits: Limits,
    ledger: &mut L,
) -> Result<Record, EngineError> {
    let mut clock = Clock::new(stream, ledger, limits);
    let mut progress = Progress::default();
    let mut t = 0.0_f64;
    while let Some(chunk) = policy.next_chunk(&progress) {
        progress.time_s = t;
        let chunk_start_s = t;
        let compute_end_s = t + chunk.compute_s;
        if clock.next_s < compute_end_s {
            let (at_s, cause) = clock.strike_losing(chunk_start_s)?;
            t = clock.recover(job, at_s, cause)?;
            if job.on_failure == OnFailure::EndJob {
                break;
            }
            continue;
        }
        t = compute_end_s;
        let writes = !(chunk.last && job.final_checkpoint == FinalCheckpoint::Skipped);
        if writes {
            let write_end_s = t + job.checkpoint_s;
            match job.checkpoint_exposure {
                Exposure::CanFail if clock.next_s < write_end_s => {
                    clock.rec.failures_during_checkpoint += 1;
                    let (at_s, cause) = clock.strike_losing(chunk_start_s)?;
                    t = clock.recover(job, at_s, cause)?;
                    if job.on_failure == OnFailure::EndJob {
                        break;
                    }
                    continue;
                }
                Exposure::CanFail => {}
                Exposure::CannotFail => clock.ignore_until(write_end_s)?,
            }
            t = write_end_s;
            clock.rec.checkpoints += 1;
        }
        progress.committed_chunks += 1;
        progress.committed_work_s += chunk.compute_s;
    }
    clock.rec.wall_s = t;
    Ok(clock.rec)
}

/// Plays `job` with periodic checkpoints (chunks of `layout`) and fixed costs against
/// `stream`, failure by failure: the chunks that complete before the next failure are
/// counted with one division, so a replication costs O(failures), not O(chunks)
/// (DESIGN.md, "failure-driven engine"). Gives the same counters as [`play`] with
/// [`Periodic`](crate::policy::Periodic) on the same stream, and the same wall time up to
/// rounding: it multiplies where [`play`] adds chunk after chunk.
///
/// The state lives in locals rather than in a struct behind a reference, and on the common
/// path failures are pulled in one place (the recovery loop), so the stream's inlined draw
/// appears once in the hot loop (benches/engine.rs measures the path).
pub fn play_periodic<S: FailureStream>(
    job: &Job,
    layout: &ChunkLayout,
    stream: &mut S,
    limits: Limits,
) -> Result<Record, EngineError> {
    play_periodic_by_cause(job, layout, stream, limits, &mut ())
}

/// [`play_periodic`], charging each struck failure and its cost to its cause in `ledger`
/// (the same split as [`play_by_cause`] on the same stream, up to rounding).
pub fn play_periodic_by_cause<S: FailureStream, L: CauseLedger>(
    job: &Job,
    layout: &ChunkLayout,
    stream: &mut S,
    limits: Limits,
    ledger: &mut L,
) -> Result<Record, EngineError> {
    use Exposure::{CanFail, CannotFail};
    use OnFailure::{EndJob, Restart};
    let args = (job, layout, stream, limits, ledger);
    if layout.full_chunks() >= MAX_FLOAT_FULL_CHUNKS {
        let given = AsGiven {
            write_can_fail: job.checkpoint_exposure == CanFail,
            restart_can_fail: job.restart_exposure == CanFail,
            ends_on_failure: job.on_failure == EndJob,
        };
        return periodic_loop::<S, L, i64, _>(args, given);
    }
    match (job.checkpoint_exposure, job.restart_exposure, job.on_failure) {
        (CanFail, CanFail, Restart) => periodic_loop::<S, L, f64, _>(args, Fixed::<true, true, false>),
        (CanFail, CannotFail, Restart) => periodic_loop::<S, L, f64, _>(args, Fixed::<true, false, false>),
        (CannotFail, CanFail, Restart) => periodic_loop::<S, L, f64, _>(args, Fixed::<false, true, false>),
        (CannotFail, CannotFail, Restart) => periodic_loop::<S, L, f64, _>(args, Fixed::<false, false, false>),
        (CanFail, CanFail, EndJob) => periodic_loop::<S, L, f64, _>(args, Fixed::<true, true, true>),
        (CanFail, CannotFail, EndJob) => periodic_loop::<S, L, f64, _>(args, Fixed::<true, false, true>),
        (CannotFail, CanFail, EndJob) => periodic_loop::<S, L, f64, _>(args, Fixed::<false, true, true>),
        (CannotFail, CannotFail, EndJob) => periodic_loop::<S, L, f64, _>(args, Fixed::<false, false, true>),
    }
}

/// The most full chunks the fast path counts in floats ([`floor_chunks`] is exact below
/// 2⁵²); a layout with more (over 4.5·10¹⁵ chunks: scenarios allow 10¹²) is counted in
/// [`i64`], as the fast path always counted before, with the same result.
const MAX_FLOAT_FULL_CHUNKS: u64 = (1 << 52) - 1;

/// How the fast path's loop counts chunks: in [`f64`] (exact integers, no conversion between
/// integers and floats in the loop) up to [`MAX_FLOAT_FULL_CHUNKS`] full chunks, in [`i64`]
/// (exact to 2⁶³) past it.
trait ChunkCount: Copy + PartialOrd + std::ops::Sub<Output = Self> + std::ops::SubAssign {
    /// No chunks.
    const ZERO: Self;
    /// `count` chunks.
    fn of(count: u64) -> Self;
    /// The period a quotient `q` ≥ 0 (time since the restart ÷ period) falls in: ⌊q⌋, and
    /// at least [`MAX_FLOAT_FULL_CHUNKS`] where q is larger or ∞ (0 or NaN for NaN).
    fn period_of(q: f64) -> Self;
    /// The count as a float.
    fn to_f64(self) -> f64;
    /// The count as an unsigned integer.
    fn to_u64(self) -> u64;
}

impl ChunkCount for f64 {
    const ZERO: f64 = 0.0;
    #[inline(always)]
    fn of(count: u64) -> f64 {
        count as f64
    }
    #[inline(always)]
    fn period_of(q: f64) -> f64 {
        floor_chunks(q)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
}

impl ChunkCount for i64 {
    const ZERO: i64 = 0;
    // Signed: conversions to and from f64 are one instruction each on x86-64, unsigned ones
    // several.
    #[inline(always)]
    fn of(count: u64) -> i64 {
        count as i64
    }
    #[inline(always)]
    fn period_of(q: f64) -> i64 {
        // Truncates like floor for q ≥ 0, and saturates, never wraps (no more failures is
        // f = ∞).
        q as i64
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
}

/// The job's switches as the fast path's loop reads them: constants of the type ([`Fixed`],
/// one loop compiled for each combination, where they cost neither a test nor a register)
/// or values ([`AsGiven`]).
trait Switches: Copy {
    /// [`Job::checkpoint_exposure`] is [`Exposure::CanFail`].
    fn write_can_fail(self) -> bool;
    /// [`Job::restart_exposure`] is [`Exposure::CanFail`].
    fn restart_can_fail(self) -> bool;
    /// [`Job::on_failure`] is [`OnFailure::EndJob`].
    fn ends_on_failure(self) -> bool;
}

/// The switches as constants: `WRITE` for [`Switches::write_can_fail`], `RESTART` for
/// [`Switches::restart_can_fail`], `ENDS` for [`Switches::ends_on_failure`].
#[derive(Debug, Clone, Copy)]
struct Fixed<const WRITE: bool, const RESTART: bool, const ENDS: bool>;

impl<const WRITE: bool, const RESTART: bool, const ENDS: bool> Switches for Fixed<WRITE, RESTART, ENDS> {
    #[inline(always)]
    fn write_can_fail(self) -> bool {
        WRITE
    }
    #[inline(always)]
    fn restart_can_fail(self) -> bool {
        RESTART
    }
    #[inline(always)]
    fn ends_on_failure(self) -> bool {
        ENDS
    }
}

/// The switches as values, for the rare layouts counted in [`i64`] (one loop for all).
#[derive(Debug, Clone, Copy)]
struct AsGiven {
    write_can_fail: bool,
    restart_can_fail: bool,
    ends_on_failure: bool,
}

impl Switches for AsGiven {
    fn write_can_fail(self) -> bool {
        self.write_can_fail
    }
    fn restart_can_fail(self) -> bool {
        self.restart_can_fail
    }
    fn ends_on_failure(self) -> bool {
        self.ends_on_failure
    }
}

/// ⌊q⌋ for 0 ≤ q < 2⁵², exactly, and at least 2⁵² − 1 for a larger q (∞ stays ∞, NaN stays
/// NaN), in floats: q + 2⁵² rounds to the nearest integer, one less where that rounded up.
/// It replaces the saturating conversion `q as i64` (six instructions on x86-64, and one more
/// back to a float) on the fast path's hot loop.
#[inline(always)]
fn floor_chunks(q: f64) -> f64 {
    debug_assert!(q >= 0.0 || q.is_nan(), "a failure before the restart it follows: {q}");
    const TWO_POW_52: f64 = (1_u64 << 52) as f64;
    let rounded = (q + TWO_POW_52) - TWO_POW_52;
    rounded - f64::from(u8::from(rounded > q))
}

/// The loop of [`play_periodic_by_cause`], counting chunks in `C` and reading the job's
/// switches from `switches`.
fn periodic_loop<S: FailureStream, L: CauseLedger, C: ChunkCount, W: Switches>(
    (job, layout, stream, limits, ledger): (&Job, &ChunkLayout, &mut S, Limits, &mut L),
    switches: W,
) -> Result<Record, EngineError> {
    let (full_s, last_s) = (layout.full_s, layout.last_s);
    let period_s = full_s + job.checkpoint_s;
    let last_write_s = match job.final_checkpoint {
        FinalCheckpoint::Written => job.checkpoint_s,
        FinalCheckpoint::Skipped => 0.0,
    };
    let (write_can_fail, restart_can_fail) = (switches.write_can_fail(), switches.restart_can_fail());
    let (downtime_s, restart_s) = (job.downtime_s, job.restart_s);
    let (max_failures, max_ignored) = (limits.max_failures, limits.max_ignored);
    let too_many = |at_s: f64| EngineError::TooManyFailures { limit: max_failures, wall_s: at_s };
    let too_many_ignored = |at_s: f64| EngineError::TooManyIgnoredFailures { limit: max_ignored, wall_s: at_s };
    let full_chunks = C::of(layout.full_chunks());
    let mut rec = Record::default();
    // The pending failure: the next one not yet consumed (s), and its cause (for the
    // exponential stream a constant, so its bookkeeping folds into fixed slots).
    let next = stream.next_failure();
    let (mut f, mut cause) = (next.time_s, Cause::of(next.scope));
    // When the job (re)started computing from its last checkpoint, and the full chunks not
    // committed (checkpointed) yet (the committed ones are not kept in the loop: one register
    // fewer, and the sum of recovery times stays in one).
    let mut t = 0.0_f64;
    let mut full_left = full_chunks;
    let mut completed = false;
    let ends_on_failure = switches.ends_on_failure();
    loop {
        // The period that f falls in, counted from t: (f − t)/P ≥ 0 (never below 2⁵² − 1
        // past the last full chunk: no more failures is f = ∞).
        let j = C::period_of((f - t) / period_s);
        let lost_s;
        if j < full_left {
            // The failure falls in one of the full chunks still to run.
            let offset_s = f - t - j.to_f64() * period_s;
            let in_write = offset_s >= full_s;
            if !write_can_fail && in_write {
                rec.ignored_failures += 1;
                if rec.ignored_failures > max_ignored {
                    return Err(too_many_ignored(f));
                }
                let next = stream.next_failure();
                (f, cause) = (next.time_s, Cause::of(next.scope));
                continue;
            }
            // Counted without a branch: at short intervals writes take many failures.
            rec.failures_during_checkpoint += in_write as u64;
            full_left -= j;
            lost_s = offset_s;
        } else {
            // Without full chunks the period may be infinite (no checkpoint before the end).
            let last_start_s = if full_left == C::ZERO { t } else { t + full_left.to_f64() * period_s };
            let compute_end_s = last_start_s + last_s;
            let end_s = compute_end_s + last_write_s;
            if f >= end_s {
                full_left = C::ZERO;
                t = end_s;
                completed = true;
                break;
            }
            if f >= compute_end_s {
                if !write_can_fail {
                    rec.ignored_failures += 1;
                    if rec.ignored_failures > max_ignored {
                        return Err(too_many_ignored(f));
                    }
                    let next = stream.next_failure();
                    (f, cause) = (next.time_s, Cause::of(next.scope));
                    continue;
                }
                rec.failures_during_checkpoint += 1;
            }
            full_left = C::ZERO;
            // At most a rounding error below 0, where f is the instant the last full
            // chunk's write ends.
            lost_s = (f - last_start_s).max(0.0);
        }
        // The failure at f strikes the job.
        rec.failures += 1;
        if rec.failures > max_failures {
            return Err(too_many(f));
        }
        rec.lost_s += lost_s;
        ledger.struck(cause, lost_s);
        // Recovery: downtime (failures ignored), then restart attempts until one completes.
        // Each failure is charged the recovery up to the next one that strikes the restart.
        let struck_s = f;
        let mut recovering_since_s = f;
        let mut restart_at_s = f + downtime_s;
        let mut done_s = restart_at_s + restart_s;
        loop {
            let next = stream.next_failure();
            let next_cause = Cause::of(next.scope);
            f = next.time_s;
            if f >= done_s {
                ledger.recovered(cause, done_s - recovering_since_s);
                cause = next_cause;
                break;
            }
            if f < restart_at_s || !restart_can_fail {
                rec.ignored_failures += 1;
                if rec.ignored_failures > max_ignored {
                    return Err(too_many_ignored(f));
                }
                continue;
            }
            rec.failed_restarts += 1;
            rec.failures += 1;
            if rec.failures > max_failures {
                return Err(too_many(f));
            }
            ledger.recovered(cause, f - recovering_since_s);
            (cause, recovering_since_s) = (next_cause, f);
            ledger.struck(cause, 0.0);
            restart_at_s = f + downtime_s;
            done_s = restart_at_s + restart_s;
        }
        rec.recovery_s += done_s - struck_s;
        t = done_s;
        if ends_on_failure {
            break;
        }
    }
    // Every committed chunk wrote a checkpoint; the last one too when the job completed
    // with its final write.
    let committed = full_chunks - full_left;
    rec.checkpoints = committed.to_u64();
    // Every failure struck computing or writing ended in one completed restart; the others
    // struck restarts. (Counted here, not in the loop: one counter fewer to keep there.)
    rec.restarts = rec.failures - rec.failed_restarts;
    if completed {
        debug_assert_eq!(committed.to_u64() + 1, layout.count);
        if job.final_checkpoint == FinalCheckpoint::Written {
            rec.checkpoints += 1;
        }
    }
    rec.wall_s = t;
    Ok(rec)
}

/// [`play_periodic`] on any [`Stream`], dispatched once per replication: the commonest
/// stream (Poisson failures) gets a loop of its own with the draw inlined, the others share
/// one that calls through the enum. The result is that of [`play_periodic`] on the stream.
pub fn play_periodic_on<L: CauseLedger>(
    job: &Job,
    layout: &ChunkLayout,
    stream: &mut Stream,
    limits: Limits,
    ledger: &mut L,
) -> Result<Record, EngineError> {
    match stream {
        Stream::Exponential(s) => play_periodic_by_cause(job, layout, s, limits, ledger),
        other => play_periodic_by_cause(job, layout, other, limits, ledger),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::ListStream;
    use crate::policy::Periodic;

    fn job() -> Job {
        Job {
            work_s: 10.0,
            checkpoint_s: 1.0,
            restart_s: 2.0,
            downtime_s: 0.0,
            final_checkpoint: FinalCheckpoint::Written,
            checkpoint_exposure: Exposure::CanFail,
            restart_exposure: Exposure::CanFail,
            on_failure: OnFailure::Restart,
        }
    }

    fn both(job: &Job, interval_s: f64, failures: &[f64]) -> Record {
        let layout = ChunkLayout::new(job.work_s, interval_s);
        let slow = play(job, &Periodic { layout }, &mut ListStream::new(failures.to_vec()), Limits::default()).unwrap();
        let fast = play_periodic(job, &layout, &mut ListStream::new(failures.to_vec()), Limits::default()).unwrap();
        assert_eq!(slow, fast, "paths disagree on {failures:?}");
        slow
    }

    #[test]
    fn no_failure_costs_chunks_plus_writes() {
        // 10 s of work in chunks of 4: 4 + 4 + 2, each followed by a 1 s write.
        let r = both(&job(), 4.0, &[]);
        assert_eq!((r.wall_s, r.checkpoints, r.failures), (13.0, 3, 0));
        let mut j = job();
        j.final_checkpoint = FinalCheckpoint::Skipped;
        assert_eq!(both(&j, 4.0, &[]).wall_s, 12.0);
    }

    #[test]
    fn hand_worked_failures() {
        // Failure at 6: chunk 1 (5..9) lost, restart 6..8, chunks 1 and 2 again: 8+5+3 = 16.
        let r = both(&job(), 4.0, &[6.0]);
        assert_eq!((r.wall_s, r.failures, r.checkpoints, r.restarts), (16.0, 1, 3, 1));
        // Failure during the first write (4..5): chunk 0 lost too; restart 4.5..6.5, then 13.
        let r = both(&job(), 4.0, &[4.5]);
        assert_eq!((r.wall_s, r.failures_during_checkpoint), (6.5 + 13.0, 1));
        // A failure during the restart starts it over.
        let r = both(&job(), 4.0, &[6.0, 7.0]);
        assert_eq!((r.wall_s, r.failed_restarts, r.restarts), (9.0 + 8.0, 1, 1));
    }

    #[test]
    fn immune_phases_ignore_failures() {
        let mut j = job();
        j.checkpoint_exposure = Exposure::CannotFail;
        let r = both(&j, 4.0, &[4.5]);
        assert_eq!((r.wall_s, r.ignored_failures, r.failures), (13.0, 1, 0));
        j.restart_exposure = Exposure::CannotFail;
        j.downtime_s = 3.0;
        // Failure at 6, downtime 6..9 (failure at 8 ignored), restart 9..11 (10 ignored).
        let r = both(&j, 4.0, &[6.0, 8.0, 10.0]);
        assert_eq!((r.wall_s, r.ignored_failures, r.failed_restarts), (11.0 + 8.0, 2, 0));
    }

    #[test]
    fn end_job_stops_at_the_first_failure_after_its_restart() {
        let mut j = job();
        j.on_failure = OnFailure::EndJob;
        // Failure at 6 (chunk 1 of 5..9): one chunk written, 1 s lost, restart 6..8, end.
        let r = both(&j, 4.0, &[6.0, 7.5]);
        assert_eq!((r.wall_s, r.checkpoints, r.lost_s, r.recovery_s), (8.0 + 1.5, 1, 1.0, 3.5));
        assert_eq!((r.failures, r.failed_restarts, r.restarts), (2, 1, 1));
        assert!(r.ended_by_failure(&j));
        let done = both(&j, 4.0, &[]);
        assert!(!done.ended_by_failure(&j));
        assert_eq!(done.wall_s, 13.0);
    }

    #[test]
    fn lost_and_recovery_time_add_up() {
        // Failure at 6 loses 1 s of chunk 1; restart 6..8 is 2 s of recovery.
        let r = both(&job(), 4.0, &[6.0]);
        assert_eq!((r.lost_s, r.recovery_s), (1.0, 2.0));
        assert_eq!(r.wall_s, 10.0 + 3.0 * 1.0 + r.lost_s + r.recovery_s);
    }

    /// [`floor_chunks`] is ⌊q⌋ below 2⁵² (checked against the integer conversion on random
    /// quotients of every magnitude, on integers and next to them), and never below 2⁵² − 1
    /// above it, so a layout of fewer full chunks than that always finds the last chunk.
    #[test]
    fn floor_chunks_is_the_floor_below_two_pow_52() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(52);
        let two_pow_52 = (1_u64 << 52) as f64;
        let mut below = 0;
        for _ in 0..200_000 {
            let q = 10f64.powf(rng.random_range(-20.0..20.0));
            let q = match rng.random_range(0..4) {
                0 => q.floor(),
                1 => q.floor().next_down(),
                2 => q.floor().next_up(),
                _ => q,
            }
            .max(0.0);
            let j = floor_chunks(q);
            if q < two_pow_52 {
                assert_eq!(j, (q as u64) as f64, "q = {q:e}");
                below += 1;
            } else {
                assert!(j >= two_pow_52 - 1.0, "q = {q:e} gave {j:e}");
            }
        }
        assert!(below > 100_000, "too few quotients below 2^52: {below}");
        for q in [0.0, 0.5, 1.0, two_pow_52.next_down(), two_pow_52 - 0.5, two_pow_52 - 1.5] {
            assert_eq!(floor_chunks(q), q.floor(), "q = {q:e}");
        }
        assert_eq!(floor_chunks(f64::INFINITY), f64::INFINITY);
        assert!(floor_chunks(f64::NAN).is_nan());
    }

    /// Past [`MAX_FLOAT_FULL_CHUNKS`] full chunks the fast path counts in integers: a failure
    /// near the 2⁵²-th period is placed by the quotient's truncation (where the float count
    /// would be off: a write's failure given to the compute, a checkpoint too few), and a job
    /// of 2⁶² chunks with no failure still takes one step (the per-segment path would take
    /// 2⁶²).
    #[test]
    fn layouts_past_the_float_counts_are_counted_in_integers() {
        let mut j = job();
        j.on_failure = OnFailure::EndJob;
        // Chunks of 0.75 s and writes of 1 s: periods of 1.75 s.
        let (full_s, period_s) = (0.75, 1.75);
        let layout = ChunkLayout { count: MAX_FLOAT_FULL_CHUNKS + 1000, full_s, last_s: full_s };
        let two_pow_52 = (1_u64 << 52) as f64;
        let mut writes = 0;
        for k in 0..400 {
            // Times from 2⁵² − 100 to 2⁵² + 100 periods, by quarters of a second.
            let f = (two_pow_52 - 100.0) * period_s + k as f64 * 0.25 * period_s;
            let r = play_periodic(&j, &layout, &mut ListStream::new(vec![f, f64::INFINITY]), Limits::default())
                .unwrap_or_else(|e| panic!("f = {f:e}: {e}"));
            let period = (f / period_s) as u64;
            let in_write = f - period as f64 * period_s >= full_s;
            assert_eq!((r.checkpoints, r.failures_during_checkpoint), (period, u64::from(in_write)), "f = {f:e}");
            writes += u64::from(in_write);
        }
        assert!(writes > 50 && writes < 350, "the times must fall in writes and in chunks: {writes}");
        // No failure: the job runs to its end at once, on both sides of the limit.
        for count in [MAX_FLOAT_FULL_CHUNKS - 1, MAX_FLOAT_FULL_CHUNKS, MAX_FLOAT_FULL_CHUNKS + 1, 1 << 62] {
            let layout = ChunkLayout { count, full_s: 1.0, last_s: 1.0 };
            let r = play_periodic(&job(), &layout, &mut ListStream::new(vec![]), Limits::default()).unwrap();
            assert_eq!((r.checkpoints, r.failures), (count, 0), "count {count}");
            assert_eq!(r.wall_s, (count - 1) as f64 * 2.0 + 2.0, "count {count}");
        }
    }

    #[test]
    fn too_many_failures_is_an_error() {
        let mut j = job();
        j.restart_s = 5.0;
        let failures: Vec<f64> = (1..1000).map(|i| i as f64 * 3.0).collect();
        let limits = Limits { max_failures: 50, ..Limits::default() };
        let layout = ChunkLayout::new(j.work_s, 4.0);
        let err = play_periodic(&j, &layout, &mut ListStream::new(failures), limits).unwrap_err();
        assert!(matches!(err, EngineError::TooManyFailures { limit: 50, .. }));
    }

    /// Failures the job passes over count against their own limit, on both paths and in each
    /// phase that ignores them: a restart or a write that cannot fail, and the downtime. (A
    /// 10 min restart that cannot fail at a 10 ms MTBF ran a replication for hours.)
    #[test]
    fn too_many_ignored_failures_is_an_error() {
        // A failure at 1 s strikes; then one every 0.01 s, all inside the phase that ignores
        // them (the restart, the downtime, or the write of the first chunk).
        let dense: Vec<f64> = std::iter::once(1.0).chain((1..10_000).map(|i| 1.0 + i as f64 * 0.01)).collect();
        let limits = Limits { max_ignored: 50, ..Limits::default() };
        let mut immune_restart = job();
        (immune_restart.restart_s, immune_restart.restart_exposure) = (500.0, Exposure::CannotFail);
        let mut downtime = job();
        downtime.downtime_s = 500.0;
        let mut immune_write = job();
        (immune_write.checkpoint_s, immune_write.checkpoint_exposure) = (500.0, Exposure::CannotFail);
        for (name, j, failures) in [
            ("restart", &immune_restart, dense.clone()),
            ("downtime", &downtime, dense.clone()),
            // The chunk of 0.5 s ends before the first failure: the write ignores them all.
            ("write", &immune_write, dense[1..].to_vec()),
        ] {
            let layout = ChunkLayout::new(j.work_s, if name == "write" { 0.5 } else { 4.0 });
            let fast = play_periodic(j, &layout, &mut ListStream::new(failures.clone()), limits).unwrap_err();
            let slow = play(j, &Periodic { layout }, &mut ListStream::new(failures), limits).unwrap_err();
            for err in [fast, slow] {
                assert!(matches!(err, EngineError::TooManyIgnoredFailures { limit: 50, .. }), "{name}: {err:?}");
            }
        }
    }
}
