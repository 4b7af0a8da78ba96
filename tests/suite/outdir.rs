//! The output folder contract (DESIGN.md, "Output contract").
