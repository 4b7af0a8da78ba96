//! Failure logs: reading, per-system statistics, and replay (issue #4).
