//! Default terminal tables fit 100 columns.
