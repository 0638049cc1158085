//! What papayu's names look like: plan ids, object ids, proposal branch names, and the short
//! form of an id shown to users. Shared by the records, the proposals and the operation log, so
//! none of them has to reach into another for it.

/// Whether `text` is a plan id (or a line hash): 40 lowercase hex digits.
pub fn is_plan_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `text` is a full object id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
pub fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `name` is a branch name papayu may own: `papayu/…`, valid as a git ref.
pub fn is_proposal_branch(name: &str) -> bool {
    name.starts_with("papayu/") && git2::Reference::is_valid_name(&format!("refs/heads/{name}"))
}

/// How many hex digits of an object or plan id are shown to users.
pub const SHORT: usize = 10;

/// The first [`SHORT`] characters of an id (an object id, a plan id, a digest), as shown to users.
pub fn short(id: impl std::fmt::Display) -> String {
    id.to_string().chars().take(SHORT).collect()
}
