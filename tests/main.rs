//! The integration tests, one binary (link time): each module is one capability.

mod suite;
