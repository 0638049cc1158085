//! What the model sees: context gathered from the base commit, dieted to fixed limits, and
//! rendered as the byte-stable prefix of every request.
//!
//! Everything is read from the commit a plan is made against — never from the working tree —
//! so what the model saw is exactly what the plan's fingerprint records. Protected paths are
//! never read (a request for one gets "withheld: protected path"); every block's text is
//! passed through [`mask_secrets`] before it is kept; binary and non-UTF-8 files are described,
//! not dumped. Nothing here prints or touches the network.

mod corpus;
mod defs;
mod diet;
mod fill;
mod locate;
mod map;
mod query;
mod rank;
mod ranked;
mod search;
mod secrets;
mod twins;

use std::collections::BTreeMap;

use serde::Serialize;

pub use corpus::Corpus;
pub use diet::{DietReport, diet, truncate};
pub use locate::{Mention, map_path, mentions};
pub use query::Query;
pub use rank::{Ranked, Ranking, is_test_path, rank};
pub use search::{Hit, MAX_QUERY_CHARS, MAX_SEARCH_HITS, query_problem, search};
pub use secrets::{MASK, MASK_PRIVATE_KEY, MaskWritten, has_mask, mask_secrets, unmask};

use crate::protocol::attributes::{AttributeFile, Attributes};
use crate::protocol::{ContextRequest, ProtocolVersion, is_protected, sha256_hex};
use crate::store::Snapshot;
use crate::store::records::Fingerprint;

/// The seeds' context limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Budget {
    pub max_files: usize,
    pub max_file_chars: usize,
    pub max_total_chars: usize,
    pub max_log_chars: usize,
    pub map_chars: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            max_files: 8,
            max_file_chars: 20_000,
            max_total_chars: 120_000,
            max_log_chars: 12_000,
            map_chars: 6_000,
        }
    }
}

impl Budget {
    /// The limits, with `PAPAYU_CONTEXT_*` overrides from `env` (unparsable values ignored).
    pub fn from_env(env: &BTreeMap<String, String>) -> Budget {
        let mut b = Budget::default();
        let get = |name: &str, into: &mut usize| {
            if let Some(v) = env.get(name).and_then(|v| v.trim().parse().ok()) {
                *into = v;
            }
        };
        get("PAPAYU_CONTEXT_MAX_FILES", &mut b.max_files);
        get("PAPAYU_CONTEXT_MAX_FILE_CHARS", &mut b.max_file_chars);
        get("PAPAYU_CONTEXT_MAX_TOTAL_CHARS", &mut b.max_total_chars);
        get("PAPAYU_CONTEXT_MAX_LOG_CHARS", &mut b.max_log_chars);
        get("PAPAYU_CONTEXT_MAP_CHARS", &mut b.map_chars);
        b
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    File,
    Search,
    Log,
    Env,
    Map,
    Architecture,
}

/// One piece of context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Block {
    pub kind: BlockKind,
    /// The file a FILE block shows, the query of a SEARCH block, the name of a LOG.
    pub title: String,
    /// Why it is here (`named in the goal`, `traceback`, `read_file request`, …).
    pub source: String,
    /// 0 = must keep; higher is dropped sooner.
    pub priority: u8,
    pub body: String,
    /// Characters of the full content, before any truncation.
    pub full_chars: usize,
    pub truncated: bool,
    /// 1-based inclusive line ranges shown (empty: the whole file).
    pub ranges: Vec<(u32, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// SHA-256 of the file's full content (FILE blocks), even when truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The file's score when it was chosen by ranking the tree against the goal (else null).
    pub score: Option<f64>,
}

impl Block {
    fn text(
        kind: BlockKind,
        title: impl Into<String>,
        source: &str,
        priority: u8,
        body: String,
    ) -> Block {
        let body = mask_secrets(&body);
        Block {
            kind,
            title: title.into(),
            source: source.to_string(),
            priority,
            full_chars: body.len(),
            body,
            truncated: false,
            ranges: Vec::new(),
            blob: None,
            sha256: None,
            score: None,
        }
    }
}

/// What the user gave: the goal, logs, and the protocol the blocks are rendered for.
#[derive(Debug, Clone)]
pub struct Input {
    pub goal: String,
    pub logs: Vec<(String, String)>,
    pub protocol: ProtocolVersion,
}

/// Gathered blocks and what was withheld, as (path, reason).
#[derive(Debug, Default)]
pub struct Gathered {
    pub blocks: Vec<Block>,
    pub withheld: Vec<(String, String)>,
}

/// Lines shown around a line a log points at.
pub const WINDOW: u32 = 80;

/// Whether a path may be read into context.
pub fn may_read(snap: &Snapshot<'_>, path: &str) -> bool {
    Private::of(snap).allows(path)
}

/// The paths that never leave the machine: the protected denylist, and files with the
/// `papayu-private` attribute in any `.gitattributes` of the tree or in `info/attributes`,
/// resolved as the plan's protection rules resolve them.
struct Private(Attributes);

impl Private {
    fn of(snap: &Snapshot<'_>) -> Private {
        let mut attributes = Attributes::default();
        for (path, _) in snap.files() {
            let Some(dir) = path
                .strip_suffix(".gitattributes")
                .filter(|d| d.is_empty() || d.ends_with('/'))
            else {
                continue;
            };
            if let Ok(Some(file)) = snap.read(path) {
                let text = String::from_utf8_lossy(&file.bytes);
                attributes.add(AttributeFile::parse(dir, &text));
            }
        }
        if let Some(text) = snap.info_attributes() {
            attributes.add_local(AttributeFile::parse("", &text));
        }
        if let Some(text) = snap.global_attributes() {
            attributes.add_global(AttributeFile::parse("", &text));
        }
        Private(attributes)
    }

    fn allows(&self, path: &str) -> bool {
        !is_protected(path) && !self.0.is_private(path)
    }
}

/// A FILE block for `path`, whole or as line windows; `None` when it does not exist.
fn file_block(
    snap: &Snapshot<'_>,
    path: &str,
    windows: &[(u32, u32)],
    source: &str,
    priority: u8,
) -> Option<Block> {
    let file = snap.read(path).ok()??;
    let sha = sha256_hex(&file.bytes);
    let mut block = Block {
        kind: BlockKind::File,
        title: path.to_string(),
        source: source.to_string(),
        priority,
        body: String::new(),
        full_chars: file.bytes.len(),
        truncated: false,
        ranges: Vec::new(),
        blob: Some(file.blob.to_string()),
        sha256: Some(sha),
        score: None,
    };
    let Ok(text) = std::str::from_utf8(&file.bytes) else {
        block.body = format!(
            "(binary or non-UTF-8 file, {} bytes; not shown)\n",
            file.bytes.len()
        );
        block.ranges = vec![(0, 0)];
        return Some(block);
    };
    if text.contains('\0') {
        block.body = format!("(binary file, {} bytes; not shown)\n", file.bytes.len());
        block.ranges = vec![(0, 0)];
        return Some(block);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len() as u32;
    let merged = merge(windows, total);
    if merged.is_empty() || merged == [(1, total)] {
        block.body = mask_secrets(text);
        return Some(block);
    }
    let mut body = String::new();
    for &(a, b) in &merged {
        body.push_str(&format!("... lines {a}-{b} of {total}:\n"));
        for line in &lines[(a - 1) as usize..b as usize] {
            body.push_str(line);
        }
        if !body.ends_with('\n') {
            body.push('\n');
        }
    }
    block.body = mask_secrets(&body);
    block.ranges = merged;
    Some(block)
}

/// Clamps and merges overlapping windows.
fn merge(windows: &[(u32, u32)], total: u32) -> Vec<(u32, u32)> {
    let mut ws: Vec<(u32, u32)> = windows
        .iter()
        .map(|&(a, b)| (a.max(1), b.min(total)))
        .filter(|(a, b)| a <= b)
        .collect();
    ws.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (a, b) in ws {
        match out.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

const MANIFESTS: &[&str] = &[
    "pyproject.toml",
    "requirements.txt",
    "package.json",
    "poetry.lock",
    "Cargo.toml",
    "go.mod",
];

/// Most failing-test names looked up in one gather.
const MAX_TEST_NAMES: usize = 3;

/// A file to show: line windows (empty = whole), why, priority, order of first mention.
type Wanted = (Vec<(u32, u32)>, &'static str, u8, usize);

/// Context gathered before the first call: files named in the goal and logs (with ±80 lines
/// around each line a log points at), the environment and manifests when a dependency is
/// missing, the architecture notes, the logs themselves, and the repository map.
#[expect(clippy::too_many_lines, reason = "older than the limit; to be split")]
pub fn gather(snap: &Snapshot<'_>, input: &Input, budget: &Budget) -> Gathered {
    let mut out = Gathered::default();
    let exists = |p: &str| snap.is_file(p);
    let mut wanted: BTreeMap<String, Wanted> = BTreeMap::new();
    let mut order = 0;
    for path in locate::named_paths(&input.goal, &exists) {
        order += 1;
        wanted
            .entry(path)
            .or_insert((Vec::new(), "named in the goal", 0, order));
    }
    let texts =
        std::iter::once(input.goal.as_str()).chain(input.logs.iter().map(|(_, t)| t.as_str()));
    let mut missing_dependency = false;
    for text in texts {
        missing_dependency |= locate::mentions_missing_dependency(text);
        for m in locate::mentions(text, &exists) {
            order += 1;
            let entry =
                wanted
                    .entry(m.path.clone())
                    .or_insert((Vec::new(), "named in a log", 1, order));
            if let Some(line) = m.line {
                entry.0.push((line.saturating_sub(WINDOW), line + WINDOW));
            } else {
                entry.0.clear();
            }
        }
    }
    let texts =
        std::iter::once(input.goal.as_str()).chain(input.logs.iter().map(|(_, t)| t.as_str()));
    let names: Vec<String> = texts.flat_map(locate::test_names).collect();
    for name in names.iter().take(MAX_TEST_NAMES) {
        for hit in search(snap, &locate::test_definition_pattern(name), None)
            .into_iter()
            .take(2)
        {
            order += 1;
            let window = (hit.line.saturating_sub(WINDOW), hit.line + WINDOW);
            let entry = wanted.entry(hit.path).or_insert((
                vec![window],
                "defines a failing test",
                1,
                order,
            ));
            if !entry.0.is_empty() && !entry.0.contains(&window) {
                entry.0.push(window);
            }
        }
    }
    let tests: Vec<String> = wanted
        .keys()
        .filter(|p| p.contains("test") || p.contains("spec"))
        .cloned()
        .collect();
    if !tests.is_empty() {
        let files = snap.files();
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        for test in tests {
            if let Some(module) = locate::under_test(&test, &paths)
                && !wanted.contains_key(&module)
            {
                order += 1;
                wanted.insert(module, (Vec::new(), "module under test", 2, order));
            }
        }
    }
    let mut files: Vec<(String, Wanted)> = wanted.into_iter().collect();
    files.sort_by_key(|(_, (_, _, priority, order))| (*priority, *order));
    let private = Private::of(snap);
    for (path, (windows, source, priority, _)) in files {
        if !private.allows(&path) {
            out.withheld.push((path, "protected path".to_string()));
            continue;
        }
        if let Some(block) = file_block(snap, &path, &windows, source, priority) {
            out.blocks.push(block);
        }
    }
    if missing_dependency {
        out.blocks.push(Block::text(
            BlockKind::Env,
            "env",
            "a dependency is missing",
            1,
            env_text(snap),
        ));
        for manifest in MANIFESTS {
            if snap.is_file(manifest)
                && !out.blocks.iter().any(|b| b.title == *manifest)
                && let Some(block) = file_block(snap, manifest, &[], "manifest", 2)
            {
                out.blocks.push(block);
            }
        }
    }
    if let Some(block) = file_block(
        snap,
        ".papa-yu/architecture.md",
        &[],
        "architecture notes",
        1,
    ) {
        out.blocks.push(Block {
            kind: BlockKind::Architecture,
            ..block
        });
    }
    for (name, text) in &input.logs {
        out.blocks.push(Block::text(
            BlockKind::Log,
            name.clone(),
            "--log",
            2,
            text.clone(),
        ));
    }
    let ranking = ranked::add_ranked(snap, input, budget, &private, &mut out);
    let sent_whole: Vec<String> = out
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::File && b.ranges.is_empty() && !b.truncated)
        .map(|b| b.title.clone())
        .collect();
    let sent: Vec<String> = out
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::File)
        .map(|b| b.title.clone())
        .collect();
    let everything: Vec<String> = ranking.files.iter().map(|r| r.path.clone()).collect();
    let ranked = &everything[..everything.len().min(MAP_RANKED)];
    let focus = map::Focus {
        sent: &sent,
        sent_whole: &sent_whole,
        ranked,
        everything: &everything,
        private: &private,
    };
    let map = map::repo_map(snap, &input.goal, &focus, budget.map_chars);
    if !map.is_empty() {
        out.blocks.push(Block::text(
            BlockKind::Map,
            "repository map",
            "the base tree",
            3,
            map,
        ));
    }
    out
}

/// Top-ranked files the map covers (their directories listed, their definitions shown).
const MAP_RANKED: usize = 40;
/// The environment: OS, the toolchains on PATH with their versions, and the package manager the
/// tree uses. Never the values of environment variables.
pub fn env_text(snap: &Snapshot<'_>) -> String {
    let mut out = format!("os: {} {}\n", std::env::consts::OS, std::env::consts::ARCH);
    for (tool, arg) in [
        ("python3", "--version"),
        ("node", "--version"),
        ("cargo", "--version"),
        ("rustc", "--version"),
        ("go", "version"),
        ("java", "-version"),
    ] {
        if let Ok(o) = std::process::Command::new(tool).arg(arg).output() {
            let text = String::from_utf8_lossy(if o.stdout.is_empty() {
                &o.stderr
            } else {
                &o.stdout
            })
            .into_owned();
            if let Some(first) = text.lines().next() {
                out.push_str(&format!("{tool}: {}\n", first.trim()));
            }
        }
    }
    let managers = [
        ("Cargo.toml", "cargo"),
        ("poetry.lock", "poetry"),
        ("uv.lock", "uv"),
        ("requirements.txt", "pip"),
        ("pyproject.toml", "pip (pyproject)"),
        ("pnpm-lock.yaml", "pnpm"),
        ("yarn.lock", "yarn"),
        ("package-lock.json", "npm"),
        ("package.json", "npm"),
        ("go.mod", "go modules"),
    ];
    let found: Vec<&str> = managers
        .iter()
        .filter(|(f, _)| snap.is_file(f))
        .map(|(_, m)| *m)
        .collect();
    if !found.is_empty() {
        out.push_str(&format!("package managers: {}\n", found.join(", ")));
    }
    out
}

/// Blocks and withheld paths of one answered request.
type Answer = (Vec<Block>, Vec<(String, String)>);

/// Context requests answered within one plan cycle: the same request is served from here.
#[derive(Debug, Default)]
pub struct Cache {
    entries: BTreeMap<String, Answer>,
    pub hits: BTreeMap<String, u32>,
    pub misses: BTreeMap<String, u32>,
}

/// What a round of context requests produced.
#[derive(Debug, Default)]
pub struct Fulfilled {
    pub blocks: Vec<Block>,
    pub withheld: Vec<(String, String)>,
    /// `CONTEXT_CACHE_HIT` / `CONTEXT_CACHE_MISS` event lines.
    pub events: Vec<String>,
}

/// How a context request is named in its cache key, event lines and traces:
/// `read_file:src/app.py:1-40`, `search:QUERY in GLOB`, `logs:SOURCE:last N`, `env`.
pub fn request_label(r: &ContextRequest) -> String {
    request_key(r).0
}

fn request_key(r: &ContextRequest) -> (String, &'static str) {
    match r {
        ContextRequest::ReadFile {
            path,
            start_line,
            end_line,
        } => {
            let range = match (start_line, end_line) {
                (None, None) => String::new(),
                (start, end) => format!(
                    ":{}-{}",
                    start.map(|n| n.to_string()).unwrap_or_default(),
                    end.map(|n| n.to_string()).unwrap_or_default()
                ),
            };
            (format!("read_file:{path}{range}"), "read_file")
        }
        ContextRequest::Search { query, glob } => {
            let glob = glob
                .as_deref()
                .map(|g| format!(" in {g}"))
                .unwrap_or_default();
            (format!("search:{query}{glob}"), "search")
        }
        ContextRequest::Logs { source, last_n } => {
            let last = last_n.map(|n| format!(":last {n}")).unwrap_or_default();
            (format!("logs:{source}{last}"), "logs")
        }
        ContextRequest::Env => ("env".to_string(), "env"),
    }
}

/// Answers a model's context requests from the base commit and the user's logs.
pub fn fulfil(
    snap: &Snapshot<'_>,
    requests: &[ContextRequest],
    logs: &[(String, String)],
    cache: &mut Cache,
) -> Fulfilled {
    let mut out = Fulfilled::default();
    for request in requests {
        let (key, kind) = request_key(request);
        if let Some((blocks, withheld)) = cache.entries.get(&key) {
            *cache.hits.entry(kind.to_string()).or_default() += 1;
            out.events.push(format!(
                "CONTEXT_CACHE_HIT type={kind} key={}",
                event_key(&key)
            ));
            out.blocks.extend(blocks.iter().cloned());
            out.withheld.extend(withheld.iter().cloned());
            continue;
        }
        *cache.misses.entry(kind.to_string()).or_default() += 1;
        out.events.push(format!(
            "CONTEXT_CACHE_MISS type={kind} key={}",
            event_key(&key)
        ));
        let (blocks, withheld) = answer(snap, request, logs);
        cache
            .entries
            .insert(key, (blocks.clone(), withheld.clone()));
        out.blocks.extend(blocks);
        out.withheld.extend(withheld);
    }
    out
}

fn event_key(key: &str) -> String {
    let key: String = key.chars().take(100).collect();
    event_value(&key)
}

/// A value for an event line (`KEY=value`): as it is when it is one plain word, else quoted
/// with `"` and `\` escaped, so spaces stay spaces and the line still splits on them.
pub fn event_value(text: &str) -> String {
    let plain = !text.is_empty()
        && !text
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '\\');
    if plain {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_whitespace() => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn answer(
    snap: &Snapshot<'_>,
    request: &ContextRequest,
    logs: &[(String, String)],
) -> (Vec<Block>, Vec<(String, String)>) {
    match request {
        ContextRequest::ReadFile {
            path,
            start_line,
            end_line,
        } => {
            let Some(path) = map_path(path, &|p| snap.is_file(p)).or_else(|| Some(path.clone()))
            else {
                return (Vec::new(), Vec::new());
            };
            if !may_read(snap, &path) {
                return (Vec::new(), vec![(path, "protected path".to_string())]);
            }
            let windows = match (start_line, end_line) {
                (None, None) => Vec::new(),
                (a, b) => vec![(
                    a.unwrap_or(1).min(u64::from(u32::MAX)) as u32,
                    b.unwrap_or(u64::from(u32::MAX)).min(u64::from(u32::MAX)) as u32,
                )],
            };
            match file_block(snap, &path, &windows, "read_file request", 0) {
                Some(block) => (vec![block], Vec::new()),
                None => (
                    Vec::new(),
                    vec![(path, "no such file at the base commit".to_string())],
                ),
            }
        }
        ContextRequest::Search { query, glob } => {
            if let Some(why) = query_problem(query) {
                let shown: String = query.chars().take(40).collect();
                return (Vec::new(), vec![(format!("search {shown}…"), why)]);
            }
            let hits = search(snap, query, glob.as_deref());
            let mut body = String::new();
            for hit in &hits {
                body.push_str(&format!("{}:{}: {}\n", hit.path, hit.line, hit.text));
            }
            if hits.is_empty() {
                body.push_str("(no matches)\n");
            }
            let title = match glob {
                Some(g) => format!("{query} in {g}"),
                None => query.clone(),
            };
            (
                vec![Block::text(
                    BlockKind::Search,
                    title,
                    "search request",
                    3,
                    body,
                )],
                Vec::new(),
            )
        }
        ContextRequest::Logs { source, last_n } => {
            let log = logs
                .iter()
                .find(|(name, _)| name == source || name.ends_with(source.as_str()))
                .or_else(|| logs.first());
            let Some((name, text)) = log else {
                return (
                    Vec::new(),
                    vec![(
                        source.clone(),
                        "no log was given (pass --log FILE)".to_string(),
                    )],
                );
            };
            let lines: Vec<&str> = text.lines().collect();
            let n = last_n.map_or(lines.len(), |n| (n as usize).min(lines.len()));
            let body = lines[lines.len() - n..].join("\n") + "\n";
            (
                vec![Block::text(
                    BlockKind::Log,
                    name.clone(),
                    "logs request",
                    2,
                    body,
                )],
                Vec::new(),
            )
        }
        ContextRequest::Env => (
            vec![Block::text(
                BlockKind::Env,
                "env",
                "env request",
                1,
                env_text(snap),
            )],
            Vec::new(),
        ),
    }
}

/// Renders blocks as the text sent to the model; the same blocks always give the same bytes.
/// Under v2, FILE headers carry the SHA-256 of the full file, which PATCH_FILE must quote.
pub fn render(blocks: &[Block], version: ProtocolVersion) -> String {
    let mut out = String::new();
    for b in blocks {
        let header = match b.kind {
            BlockKind::File => match (&b.sha256, version) {
                (Some(sha), ProtocolVersion::V2) => format!("FILE[{}] (sha256={sha}):", b.title),
                _ => format!("FILE[{}]:", b.title),
            },
            BlockKind::Search => format!("SEARCH[{}]:", b.title),
            BlockKind::Log => format!("LOG[{}]:", b.title),
            BlockKind::Env => "ENV:".to_string(),
            BlockKind::Map => "REPOSITORY MAP (paths at the base commit):".to_string(),
            BlockKind::Architecture => format!("ARCHITECTURE[{}]:", b.title),
        };
        out.push_str(&header);
        out.push('\n');
        out.push_str(&b.body);
        if !b.body.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// The fingerprint of every file block: what was sent, with ranges and truncation.
pub fn fingerprints(blocks: &[Block]) -> Vec<Fingerprint> {
    let mut out: Vec<Fingerprint> = Vec::new();
    for b in blocks
        .iter()
        .filter(|b| b.kind == BlockKind::File || b.kind == BlockKind::Architecture)
    {
        let (Some(blob), Some(sha)) = (&b.blob, &b.sha256) else {
            continue;
        };
        match out.iter_mut().find(|f| f.path == b.title) {
            Some(f) => {
                // Seen again: whole beats partial.
                if b.ranges.is_empty() && !b.truncated {
                    f.ranges.clear();
                    f.truncated = false;
                } else if !f.ranges.is_empty() {
                    f.ranges.extend(b.ranges.iter().copied());
                }
            }
            None => out.push(Fingerprint {
                path: b.title.clone(),
                blob_oid: blob.clone(),
                sha256: sha.clone(),
                ranges: b.ranges.clone(),
                truncated: b.truncated,
            }),
        }
    }
    out
}
