//! The one object that writes to the terminal.
//!
//! Every command reaches the user through the [`Ui`] made once in `main` from the global flags
//! (`--json`, `-v`, `-q`, `--color`, `--no-pager`) and git's settings. It knows where each kind
//! of output goes (data to stdout; progress, status, warnings and errors to stderr), whether
//! each stream is a terminal, whether and how to colour it (see [`color`]), whether to page
//! (see [`pager`]) and whether the command speaks JSON.
//!
//! Under `--json`, stdout carries exactly one JSON document, written when the command ends:
//! `version`, `command`, `ok`, the command's own fields, `warnings` and `errors` (see
//! docs/json.md). Human output is not written then, and warnings and errors go into the
//! document instead of stderr; the exit status is the same either way.
//!
//! With `-q`, as with git's, a command that changes something (`plan`, `apply`, `merge`,
//! `undo`, …) says nothing on success: its report on stdout is dropped with the status lines,
//! and only warnings and errors show. Commands whose output is what the user asked to see
//! (`list`, `show`, `diff`, `config`, `trace show`, …) print it as usual.
//!
//! A closed stdout (`git papayu list | head -1`) is not an error: output stops quietly. Every
//! string written here passes through [`text`](super::text): text from a model or a note never
//! reaches the terminal raw. The one exception is [`out_painted`], for output papayu coloured
//! itself after making its parts safe.

pub mod board;
mod color;
mod pager;

use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Mutex, MutexGuard, OnceLock};

use git_papayu::{Code, Problem};
use serde_json::{Map, Value};

pub use color::{Palette, When};

use super::{CliError, CliResult, text};

/// The shape of every `--json` document (docs/json.md).
pub const JSON_VERSION: u32 = 1;

/// The global flags that shape output.
#[derive(Debug, Default, Clone)]
pub struct Flags {
    pub json: bool,
    pub verbose: bool,
    pub quiet: bool,
    pub color: Option<When>,
    pub no_pager: bool,
}

/// Everything the user sees goes through this one value.
pub struct Ui {
    json: bool,
    verbose: bool,
    quiet: bool,
    /// Whether stdout ends on a terminal (directly or through a pager papayu runs under).
    stdout_term: bool,
    stderr_tty: bool,
    color_err: bool,
    /// papayu's own colours (a status, a header) on stdout: `color.papayu`, `color.ui`.
    color_out: bool,
    /// The width to lay tables out in: the terminal's, or none (a pipe gets whole lines).
    columns: Option<usize>,
    palette: Option<Palette>,
    /// The `--color` given to a git command the user sees, see [`color::for_git`].
    git_color: Option<When>,
    pager: Option<String>,
    flags: Flags,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    command: String,
    paged: bool,
    pager_tried: bool,
    pager: Option<pager::Pager>,
    stdout_gone: bool,
    data: Map<String, Value>,
    warnings: Vec<String>,
}

static UI: OnceLock<Ui> = OnceLock::new();

/// Makes the one [`Ui`] from the global flags; call once, first thing.
/// Colour and pager come from `config`, the command's settings (`git -c` and `-C` included).
pub fn init(flags: Flags, config: &git_papayu::settings::Settings) {
    let _ = UI.set(Ui::new(&flags, config));
}

fn ui() -> &'static Ui {
    UI.get_or_init(|| Ui::new(&Flags::default(), &Default::default()))
}

impl Ui {
    fn new(flags: &Flags, settings: &git_papayu::settings::Settings) -> Ui {
        let mut config = settings.git_with_prefix("color.");
        for key in ["core.pager", "pager.papayu"] {
            if let Some(value) = settings.git(key) {
                config.insert(key.to_string(), value.to_string());
            }
        }
        let pager_env = pager::PagerEnv::from_process();
        let stdout_tty = io::stdout().is_terminal();
        let stderr_tty = io::stderr().is_terminal();
        let env_set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        let terminal = |tty: bool| color::Terminal {
            tty,
            no_color: env_set("NO_COLOR"),
            dumb: std::env::var("TERM").is_ok_and(|t| t == "dumb"),
        };
        let out_term = terminal(stdout_tty || pager_env.in_use);
        let diff_keys = ["color.diff", "color.papayu", "color.ui"];
        let palette = color::wanted(flags.color, &config, &diff_keys, out_term)
            .then(|| Palette::from_config(&config));
        let git_color = color::for_git(flags.color, &config, &["color.diff", "color.ui"], out_term);
        let own_keys = ["color.papayu", "color.ui"];
        let color_err = color::wanted(flags.color, &config, &own_keys, terminal(stderr_tty));
        let color_out = color::wanted(flags.color, &config, &own_keys, out_term);
        let columns = (stdout_tty || pager_env.in_use).then(|| terminal_columns(stdout_tty));
        let pager = match flags.no_pager || flags.json || !stdout_tty {
            true => None,
            false => pager::command(&pager_env, &config),
        };
        Ui {
            json: flags.json,
            verbose: flags.verbose
                || settings
                    .env("PAPAYU_TRACE")
                    .is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true")),
            quiet: flags.quiet,
            stdout_term: stdout_tty || pager_env.in_use,
            stderr_tty,
            color_err,
            color_out,
            columns,
            palette,
            git_color,
            pager,
            flags: flags.clone(),
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes bytes to stdout, or to the pager when the command's output is paged.
    fn write_out(&self, bytes: &[u8]) {
        let mut state = self.state();
        if state.stdout_gone {
            return;
        }
        if state.paged && !state.pager_tried {
            state.pager_tried = true;
            state.pager = self.pager.as_deref().and_then(pager::Pager::start);
        }
        if let Some(pager) = &mut state.pager {
            if !pager.write(bytes) {
                state.stdout_gone = true;
            }
            return;
        }
        let mut stdout = io::stdout().lock();
        let result = stdout.write_all(bytes).and_then(|()| stdout.flush());
        if let Err(e) = result
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            std::process::exit(0);
        }
    }

    fn write_err(&self, text: &str) {
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// `text` in an SGR colour on stderr, when stderr is coloured.
    fn paint_err(&self, sgr: &str, text: &str) -> String {
        match self.color_err {
            true => format!("{sgr}{text}\x1b[m"),
            false => text.to_string(),
        }
    }
}

/// The terminal's width: asked of the terminal itself, else `COLUMNS` (which git sets for the
/// pager it starts), else 80.
fn terminal_columns(stdout_tty: bool) -> usize {
    #[cfg(unix)]
    if stdout_tty {
        // SAFETY: TIOCGWINSZ writes one winsize into the zeroed struct passed; stdout is open.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
        if rc == 0 && size.ws_col > 0 {
            return usize::from(size.ws_col);
        }
    }
    #[cfg(not(unix))]
    let _ = stdout_tty;
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|c: &usize| *c > 0)
        .unwrap_or(80)
}

/// The width to fit a table to on stdout; `None` when stdout is not a terminal.
pub fn columns() -> Option<usize> {
    ui().columns
}

/// `text` in a git colour (`"green"`, `"bold red"`) when papayu's own output on stdout is
/// coloured (`--color`, `color.papayu`, `color.ui`); `text` must already be safe to show.
pub fn paint(color: &str, text: &str) -> String {
    match ui().color_out.then(|| color::sgr(color)).flatten() {
        Some(seq) if !seq.is_empty() => format!("{seq}{text}\x1b[m"),
        _ => text.to_string(),
    }
}

/// Writes one chunk of human output to stdout, control characters made visible (newlines and
/// tabs kept). Nothing is written under `--json`.
pub fn out(text: &str) {
    out_painted(&text::block(text));
}

/// Writes data the user asked for (a patched file, a golden case): byte for byte when stdout is
/// not a terminal, so `> out` and pipes get exactly the data; on a terminal, hazards made
/// visible with line endings (CRLF included) and tabs kept. Nothing is written under `--json`.
pub fn out_data(text: &str) {
    let ui = ui();
    match ui.stdout_term {
        true => out_painted(&text::data(text)),
        false => out_painted(text),
    }
}

/// Writes human output whose every untrusted part is already safe, and which may carry
/// papayu's own colour sequences.
pub fn out_painted(text: &str) {
    let ui = ui();
    if !ui.json && !ui.silenced() {
        ui.write_out(text.as_bytes());
    }
}

/// Commands whose stdout reports what they did rather than what the user asked to see: `-q`
/// silences it.
const REPORTING: &[&str] = &[
    "plan",
    "apply",
    "merge",
    "discard",
    "undo",
    "redo",
    "init",
    "refine",
    "gc",
    "request",
    "install-man",
    "trace prune",
];

impl Ui {
    /// `-q` on a command that only reports what it did.
    fn silenced(&self) -> bool {
        self.quiet && REPORTING.contains(&self.state().command.as_str())
    }
}

/// Writes `text` and a newline to stdout.
pub fn outln(text: &str) {
    // One write, so lines printed from several threads never run together.
    out(&format!("{text}\n"));
}

/// Writes a value as pretty JSON as the command's human output (`validate` prints the plan it
/// read this way). Under `--json` use [`data`].
#[expect(
    clippy::expect_used,
    reason = "every value printed is a report papayu defines, with string keys only"
)]
pub fn pretty_json<T: serde::Serialize>(value: &T) {
    let text = serde_json::to_string_pretty(value).expect("serializable output");
    out_painted(&text::json(&text));
    out_painted("\n");
}

/// Adds the fields of `value` (an object) to the `--json` document; a value that is not an
/// object goes under `result`. Does nothing without `--json`.
#[expect(
    clippy::expect_used,
    reason = "every value printed is a report papayu defines, with string keys only"
)]
pub fn data<T: serde::Serialize>(value: &T) {
    let ui = ui();
    if !ui.json {
        return;
    }
    let value = serde_json::to_value(value).expect("serializable output");
    let mut state = ui.state();
    match value {
        Value::Object(fields) => state.data.extend(fields),
        other => {
            state.data.insert("result".to_string(), other);
        }
    }
}

/// Whether the command speaks JSON (`--json`).
pub fn json_mode() -> bool {
    ui().json
}

/// Names the command in the `--json` document (`list`, `trace show`).
pub fn set_command(name: &str) {
    ui().state().command = name.to_string();
}

/// Declares the command's human output long enough to page (show, list, a preview): on a
/// terminal it goes through the pager git would use.
pub fn paged() {
    ui().state().paged = true;
}

/// Ends paging now: closes the pager's input and waits until the user has left it, so what
/// follows (a question on the terminal) is not hidden behind it. Later output goes straight to
/// stdout.
pub fn end_paging() {
    let pager = ui().state().pager.take();
    if let Some(pager) = pager {
        pager.finish();
    }
}

/// The diff colours, when diffs on stdout are coloured.
pub fn palette() -> Option<&'static Palette> {
    ui().palette.as_ref()
}

/// Options that carry `--no-pager` and `--color` to a git command whose output the user sees
/// directly (`git papayu diff` runs `git diff`): `git [these] diff …`.
pub fn git_display_args() -> Vec<String> {
    let ui = ui();
    let mut args = Vec::new();
    if ui.flags.no_pager {
        args.push("--no-pager".to_string());
    }
    if let Some(when) = ui.git_color {
        let when = match when {
            When::Auto => "auto",
            When::Always => "always",
            When::Never => "never",
        };
        args.push("-c".to_string());
        args.push(format!("color.ui={when}"));
        args.push("-c".to_string());
        args.push(format!("color.diff={when}"));
    }
    args
}

/// A status line on stderr (not with `-q`).
pub fn status(text: &str) {
    let ui = ui();
    if !ui.quiet {
        ui.write_err(&format!("{}\n", text::block(text)));
    }
}

/// A warning: on stderr, or in the `--json` document.
pub fn warn(text: &str) {
    let ui = ui();
    if ui.json {
        ui.state().warnings.push(text.to_string());
        return;
    }
    let label = ui.paint_err("\x1b[33m", "warning:");
    ui.write_err(&format!("{label} {}\n", text::block(text)));
}

/// An error code and its reason on stderr, as `ERR_CODE: reason`, with its indented detail.
fn problem_line(ui: &Ui, p: &Problem) {
    let code = ui.paint_err("\x1b[1;31m", p.code.as_str());
    let mut out = format!("{code}: {}\n", text::line(&p.text()));
    if let Some(detail) = &p.detail {
        for line in detail.lines() {
            out.push_str(&format!("  {}\n", text::block(line)));
        }
    }
    ui.write_err(&out);
}

/// Reports problems now (on stderr; under `--json` they belong in a result instead).
pub fn problems(problems: &[Problem]) {
    let ui = ui();
    if !ui.json {
        for p in problems {
            problem_line(ui, p);
        }
    }
}

/// One of the `errors` of a `--json` document: every field present, `null` when empty.
#[derive(Debug, serde::Serialize)]
pub struct ErrorDoc<'a> {
    pub code: git_papayu::Code,
    pub reason: &'a str,
    pub hint: Option<&'a str>,
    pub detail: Option<&'a str>,
}

/// Problems as the `errors` of a `--json` document.
pub fn errors(problems: &[Problem]) -> Vec<ErrorDoc<'_>> {
    problems
        .iter()
        .map(|p| ErrorDoc {
            code: p.code,
            reason: &p.reason,
            hint: p.hint.as_deref(),
            detail: p.detail.as_deref(),
        })
        .collect()
}

/// Asks a yes/no question on the terminal; `false` without one (stdin and stderr must both be
/// terminals) or under `--json`. A pager still showing the command's output is closed first: it
/// owns the terminal, and the answer would go to it.
pub fn ask_yes(question: &str) -> bool {
    let ui = ui();
    if ui.json || !ui.stderr_tty || !io::stdin().is_terminal() {
        return false;
    }
    end_paging();
    ui.write_err(question);
    let mut line = String::new();
    if io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim(), "y" | "Y" | "yes" | "да" | "д")
}

/// `true` with `-v` or `PAPAYU_TRACE=1`.
pub fn verbose() -> bool {
    ui().verbose
}

/// Whether progress (spinners, bars) may be drawn: stderr is a terminal and not `-q`.
pub fn progress_visible() -> bool {
    let ui = ui();
    ui.stderr_tty && !ui.quiet
}

/// A spinner line on stderr for work that may take a while (`⠋ label 3s message`), drawn only
/// when progress is visible and only once the work has taken a second, so quick commands stay
/// quiet; cleared when dropped.
pub struct Spinner {
    board: Option<board::Board>,
}

/// Work shorter than this shows no spinner.
const SPINNER_DELAY: std::time::Duration = std::time::Duration::from_secs(1);
/// The one line of a [`Spinner`].
const LINE: &str = "work";

impl Spinner {
    /// A spinner never drawn: for work reported some other way.
    pub fn hidden() -> Spinner {
        Spinner { board: None }
    }

    pub fn new(label: &str) -> Spinner {
        if !progress_visible() {
            return Spinner { board: None };
        }
        let board = board::Board::new(SPINNER_DELAY);
        board.add(LINE, &text::line(label), "");
        Spinner { board: Some(board) }
    }

    /// What the work is doing now.
    pub fn set_message(&self, message: &str) {
        if let Some(board) = &self.board {
            board.set_message(LINE, &text::line(message));
        }
    }

    /// A status line on stderr that stays, written above the spinner, which goes on.
    pub fn status(&self, text: &str) {
        match &self.board {
            Some(board) => board.above(|| status(text)),
            None => status(text),
        }
    }

    /// The spinner is being drawn.
    pub fn is_visible(&self) -> bool {
        self.board.is_some()
    }

    /// Removes the spinner for good (e.g. before streaming other output to stderr).
    pub fn clear(&mut self) {
        if let Some(board) = self.board.take() {
            board.clear();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.clear();
    }
}

/// One stable, greppable event line on stderr (`NAME key=value …`), shown only when verbose.
pub fn event(line: &str) {
    let ui = ui();
    if ui.verbose {
        ui.write_err(&format!("{}\n", text::line(line)));
    }
}

/// Passes a check's output through to stderr as it arrives, line by line, control characters
/// made visible. Call [`LiveOutput::finish`] for a last line without a newline.
#[derive(Default)]
pub struct LiveOutput {
    pending: Vec<u8>,
}

impl LiveOutput {
    pub fn push(&mut self, chunk: &[u8]) {
        self.pending.extend_from_slice(chunk);
        if let Some(end) = self.pending.iter().rposition(|b| *b == b'\n') {
            let lines: Vec<u8> = self.pending.drain(..=end).collect();
            ui().write_err(&text::block(&String::from_utf8_lossy(&lines)));
        }
    }

    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            ui().write_err(&format!(
                "{}\n",
                text::block(&String::from_utf8_lossy(&rest))
            ));
        }
    }
}

/// Ends the command: reports its problems (on stderr, or in the `--json` document), writes
/// the document, closes the pager and gives the exit status.
pub fn finish(result: CliResult) -> ExitCode {
    // What the store set aside from shared data (forged records) is said once, at the end.
    for notice in git_papayu::store::take_notices() {
        warn(&notice);
    }
    let ui = ui();
    let (status, problems): (u8, Vec<Problem>) = match result {
        Ok(()) => (0, Vec::new()),
        Err(CliError::Problems(problems)) => {
            let status = problems.iter().map(|p| p.code.exit_status()).max();
            (status.unwrap_or(1).max(1), problems)
        }
        Err(CliError::Usage(p)) => (2, vec![p]),
        Err(CliError::Internal(e)) => (3, vec![Problem::new(Code::Internal, format!("{e:#}"))]),
    };
    if ui.json {
        let mut state = ui.state();
        let mut doc = Map::new();
        doc.insert("version".into(), JSON_VERSION.into());
        doc.insert("command".into(), state.command.clone().into());
        doc.insert("ok".into(), (status == 0).into());
        doc.extend(std::mem::take(&mut state.data));
        let warnings = std::mem::take(&mut state.warnings);
        doc.insert("warnings".into(), warnings.into());
        let errors = serde_json::to_value(errors(&problems)).unwrap_or_default();
        doc.insert("errors".into(), errors);
        drop(state);
        let text = format!("{:#}", Value::Object(doc));
        ui.write_out(format!("{}\n", text::json(&text)).as_bytes());
    } else {
        for p in &problems {
            problem_line(ui, p);
        }
    }
    if let Some(pager) = ui.state().pager.take() {
        pager.finish();
    }
    ExitCode::from(status)
}
