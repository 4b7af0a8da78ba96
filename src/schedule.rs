//! Job schedules (issue #5).
