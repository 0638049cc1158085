//! Presentation every front end shares: text made safe for a terminal, line diffs and the
//! diffstat. Pure functions returning strings; nothing here prints.

pub mod diffstat;
pub mod linediff;
pub mod text;
