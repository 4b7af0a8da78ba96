//! ckptsim: a Monte Carlo simulator of long-running jobs that checkpoint while failures
//! arrive at random, validated against the closed forms of Young (1974), Daly (2006) and
//! the usage-domain model of Graziani, Lusch & Messer (2026).
//!
//! Data flow (DESIGN.md): [`scenario`] → [`runner`] (replications over [`failure`] streams
//! played by the [`engine`] under a [`policy`]) → [`stats`] summaries → [`report`], with
//! [`analytic`] closed forms beside every point.

#![warn(missing_docs)]

pub mod analytic;
pub mod cli;
pub mod efficiency;
pub mod engine;
pub mod error;
pub mod failure;
pub mod forecast;
pub mod input;
pub mod optimize;
pub mod outdir;
pub mod partial;
pub mod policy;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod schedule;
pub mod stats;
pub mod usage;
pub mod validate;

pub use error::{Error, Result};
