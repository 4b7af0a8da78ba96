//! Usage domain (issue #5).
