//! Who helped write a proposal commit, said in its trailers by code, never left to the model.
//!
//! Every commit papayu makes for a proposal names the assistance the way the Linux kernel asks
//! AI-assisted patches to (`Assisted-by: AGENT_NAME:MODEL_VERSION`, here
//! `Assisted-by: git-papayu:<model>`), beside the `Papayu-Plan:` and `Papayu-Trace:` trailers
//! that tie it to its plan. `papayu.attribution` chooses the form. papayu never adds a
//! `Signed-off-by:` for anyone: certifying the origin of a change is the person's act.

use crate::codes::{Code, Problem};
use crate::settings::Settings;
use crate::store::records::PlanRecord;

/// The setting that chooses the trailer.
pub const KEY: &str = "papayu.attribution";

/// The form of the assistance trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Attribution {
    /// `Assisted-by: git-papayu:<model>` (the default).
    #[default]
    AssistedBy,
    /// `Co-authored-by: git-papayu:<model> <git-papayu@localhost>`, which GitHub and GitLab
    /// show as a co-author.
    CoAuthoredBy,
    /// No assistance trailer (the plan trailers stay: papayu needs them).
    None,
}

impl Attribution {
    pub fn parse(text: &str) -> Option<Attribution> {
        match text.trim().to_ascii_lowercase().as_str() {
            "assisted-by" => Some(Attribution::AssistedBy),
            "co-authored-by" => Some(Attribution::CoAuthoredBy),
            "none" => Some(Attribution::None),
            _ => None,
        }
    }

    /// `papayu.attribution` from the command's settings (`git -c` included); an unknown value
    /// is `ERR_CONFIG_INVALID`, never silently the default.
    pub fn configured(settings: &Settings) -> Result<Attribution, Problem> {
        match settings.git(KEY) {
            None => Ok(Attribution::default()),
            Some(text) => Attribution::parse(text).ok_or_else(|| {
                Problem::new(
                    Code::ConfigInvalid,
                    format!("{KEY} is '{text}'; use assisted-by, co-authored-by or none"),
                )
            }),
        }
    }

    /// The trailer line for a commit of `record`, without its newline; `None` for
    /// [`Attribution::None`].
    pub fn trailer(self, record: &PlanRecord) -> Option<String> {
        let agent = format!("git-papayu:{}", model_name(record));
        match self {
            Attribution::AssistedBy => Some(format!("Assisted-by: {agent}")),
            Attribution::CoAuthoredBy => {
                Some(format!("Co-authored-by: {agent} <git-papayu@localhost>"))
            }
            Attribution::None => None,
        }
    }
}

/// The model as the provider names it; for an answer no provider gave (pasted, or an agent's
/// through `git papayu mcp`), the provider field says where it came from. One word of printable
/// ASCII-safe characters, so the trailer stays one trailer whatever a note says.
fn model_name(record: &PlanRecord) -> String {
    let raw = record
        .model
        .as_deref()
        .filter(|m| !m.trim().is_empty())
        .unwrap_or(&record.provider);
    let name: String = raw
        .trim()
        .chars()
        .map(|c| match c.is_alphanumeric() || "._-:/@+".contains(c) {
            true => c,
            false => '-',
        })
        .take(80)
        .collect();
    match name.is_empty() {
        true => "unknown".to_string(),
        false => name,
    }
}
