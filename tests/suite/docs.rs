//! The docs: every relative link and every file they cite exists.
