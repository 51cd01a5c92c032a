//! Analyses for the evidence report.
