//! The usage domain of Graziani, Lusch & Messer (2026) (issue #5).
