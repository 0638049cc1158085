//! Every error code the tool can print is documented, in docs/protocol.md or docs/errors.md.

use std::path::Path;

use git_papayu::Code;

#[test]
fn every_code_has_a_documented_row() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = ["docs/protocol.md", "docs/errors.md"]
        .iter()
        .map(|p| std::fs::read_to_string(root.join(p)).expect("doc exists"))
        .collect::<Vec<_>>()
        .join("\n");
    let missing: Vec<&str> = Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !docs.contains(&format!("| `{c}` |")))
        .collect();
    assert!(missing.is_empty(), "undocumented codes: {missing:?}");
}
