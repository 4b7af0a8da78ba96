//! Failure logs (issue #4).
