//! Answering a model's context requests (`read_file`, `search`, `logs`, `env`) from the base
//! commit and the user's logs, each request answered once a plan cycle, with the event lines
//! that say so.

use std::collections::BTreeMap;

use super::blocks::file_block;
use super::env::env_text;
use super::{Block, BlockKind, may_read, query_problem, search};
use crate::context::locate::map_path;
use crate::protocol::ContextRequest;
use crate::store::Snapshot;

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

/// One request's blocks, and what was withheld.
fn answer(snap: &Snapshot<'_>, request: &ContextRequest, logs: &[(String, String)]) -> Answer {
    match request {
        ContextRequest::ReadFile {
            path,
            start_line,
            end_line,
        } => read_file(snap, path, (*start_line, *end_line)),
        ContextRequest::Search { query, glob } => search_answer(snap, query, glob.as_deref()),
        ContextRequest::Logs { source, last_n } => log_answer(logs, source, *last_n),
        ContextRequest::Env => {
            let env = Block::text(BlockKind::Env, "env", "env request", 1, env_text(snap));
            (vec![env], Vec::new())
        }
    }
}

/// A file of the base commit, whole or the lines asked for; a path from another checkout is
/// mapped onto the tree.
fn read_file(snap: &Snapshot<'_>, path: &str, lines: (Option<u64>, Option<u64>)) -> Answer {
    let path = map_path(path, &|p| snap.is_file(p)).unwrap_or_else(|| path.to_string());
    if !may_read(snap, &path) {
        return (Vec::new(), vec![(path, "protected path".to_string())]);
    }
    let line = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    let windows = match lines {
        (None, None) => Vec::new(),
        (a, b) => vec![(line(a.unwrap_or(1)), b.map_or(u32::MAX, line))],
    };
    match file_block(snap, &path, &windows, "read_file request", 0) {
        Some(block) => (vec![block], Vec::new()),
        None => {
            let why = "no such file at the base commit".to_string();
            (Vec::new(), vec![(path, why)])
        }
    }
}

/// The hits of a search of the base commit, as one block.
fn search_answer(snap: &Snapshot<'_>, query: &str, glob: Option<&str>) -> Answer {
    if let Some(why) = query_problem(query) {
        let shown: String = query.chars().take(40).collect();
        return (Vec::new(), vec![(format!("search {shown}…"), why)]);
    }
    let hits = search(snap, query, glob);
    let mut body = String::new();
    for hit in &hits {
        body.push_str(&format!("{}:{}: {}\n", hit.path, hit.line, hit.text));
    }
    if hits.is_empty() {
        body.push_str("(no matches)\n");
    }
    let title = match glob {
        Some(g) => format!("{query} in {g}"),
        None => query.to_string(),
    };
    let block = Block::text(BlockKind::Search, title, "search request", 3, body);
    (vec![block], Vec::new())
}

/// The last lines of the log named `source` (else the first log given).
fn log_answer(logs: &[(String, String)], source: &str, last_n: Option<u64>) -> Answer {
    let log = logs
        .iter()
        .find(|(name, _)| name == source || name.ends_with(source))
        .or_else(|| logs.first());
    let Some((name, text)) = log else {
        let why = "no log was given (pass --log FILE)".to_string();
        return (Vec::new(), vec![(source.to_string(), why)]);
    };
    let lines: Vec<&str> = text.lines().collect();
    let n = last_n.map_or(lines.len(), |n| {
        usize::try_from(n).unwrap_or(usize::MAX).min(lines.len())
    });
    let body = lines[lines.len() - n..].join("\n") + "\n";
    let block = Block::text(BlockKind::Log, name.clone(), "logs request", 2, body);
    (vec![block], Vec::new())
}
