//! Where each definition ends, and which definitions are members of which: braces for the
//! C family, Rust, Go, JavaScript, Java, Kotlin, C#, Swift and PHP; indentation for Python;
//! `end` for Ruby. Lines are read after the lexer blanked comments and strings, so a brace in a
//! string does not count. Definitions inside a function body are not read.

use super::recognize::recognize;
use super::tokens::{Ctx, Found, tokens};
use super::{Def, Kind, Lang, MAX_SIGNATURE};

/// What an open block is.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Frame {
    /// A type's body: its definitions are members.
    Type,
    /// The file, a namespace, `extern "C"`: definitions at the level of the frame's own.
    Open,
    /// A function's body or any other block: nothing inside is read.
    Body,
}

fn frame_of(kind: Kind) -> Frame {
    match kind {
        Kind::Type | Kind::Impl => Frame::Type,
        Kind::Namespace => Frame::Open,
        _ => Frame::Body,
    }
}

/// The definitions of a file: `lines` as written, `code` the same lines blanked.
pub fn scan(lang: Lang, lines: &[&str], code: &[&str]) -> Vec<Def> {
    match lang {
        Lang::Python => indented(lines, code),
        Lang::Ruby => ended(lines, code),
        _ => braced(lang, lines, code),
    }
}

/// A definition found on line `l` (0-based), nested in `stack`.
fn def_at(lang: Lang, lines: &[&str], code: &[&str], l: usize, found: Found, depth: u8) -> Def {
    Def {
        name: lines[l].get(found.name.clone()).unwrap_or("").to_string(),
        kind: found.kind,
        line: l as u32 + 1,
        end: l as u32 + 1,
        depth,
        signature: signature(lang, lines, code, l),
    }
}

fn type_depth(stack: &[(Frame, Option<usize>)]) -> u8 {
    stack.iter().filter(|f| f.0 == Frame::Type).count().min(9) as u8
}

/// A definition whose body has not opened yet: its index, the depth of blocks it was found at,
/// the parentheses open in its signature, and the line it started on.
struct Pending {
    def: usize,
    level: usize,
    parens: i32,
    since: usize,
}

/// Brace languages.
fn braced(lang: Lang, lines: &[&str], code: &[&str]) -> Vec<Def> {
    let mut defs: Vec<Def> = Vec::new();
    let mut stack: Vec<(Frame, Option<usize>)> = vec![(Frame::Open, None)];
    let mut pending: Option<Pending> = None;
    let skipped = preprocessor_skips(lang, code);
    for (l, line) in code.iter().enumerate() {
        if skipped[l] {
            continue;
        }
        let top = stack.last().map_or(Frame::Open, |f| f.0);
        if pending.is_none() && top != Frame::Body {
            let ctx = Ctx {
                in_type: top == Frame::Type,
            };
            if let Some(found) = recognize(lang, line, ctx) {
                defs.push(def_at(lang, lines, code, l, found, type_depth(&stack)));
                pending = Some(Pending {
                    def: defs.len() - 1,
                    level: stack.len(),
                    parens: 0,
                    since: l,
                });
            }
        }
        braces(line, l, &mut stack, &mut pending, &mut defs);
        if let Some(p) = &pending
            && !continues(lang, code, l, p)
        {
            defs[p.def].end = l as u32 + 1;
            pending = None;
        }
    }
    let last = lines.len() as u32;
    for (_, def) in stack {
        if let Some(d) = def {
            defs[d].end = last;
        }
    }
    defs
}

/// Follows the braces, parentheses and semicolons of one line.
fn braces(
    line: &str,
    l: usize,
    stack: &mut Vec<(Frame, Option<usize>)>,
    pending: &mut Option<Pending>,
    defs: &mut [Def],
) {
    for (i, c) in line.char_indices() {
        match c {
            '(' | '[' => {
                if let Some(p) = pending {
                    p.parens += 1;
                }
            }
            ')' | ']' => {
                if let Some(p) = pending {
                    p.parens -= 1;
                }
            }
            '{' => match pending.take() {
                Some(p) if p.parens <= 0 && p.level == stack.len() => {
                    stack.push((frame_of(defs[p.def].kind), Some(p.def)));
                }
                other => {
                    *pending = other;
                    let open = line[..i].split_whitespace().any(|w| w == "extern");
                    stack.push((if open { Frame::Open } else { Frame::Body }, None));
                }
            },
            '}' if stack.len() > 1 => {
                if let Some((_, Some(d))) = stack.pop() {
                    defs[d].end = l as u32 + 1;
                    name_typedef(&mut defs[d], &line[i + 1..]);
                }
            }
            ';' => {
                if let Some(p) = pending.take_if(|p| p.parens <= 0 && p.level == stack.len()) {
                    defs[p.def].end = l as u32 + 1;
                }
            }
            _ => {}
        }
    }
}

/// `typedef struct { … } name;`: the name comes where the body closes.
fn name_typedef(def: &mut Def, rest: &str) {
    if !def.name.is_empty() || def.kind != Kind::Type {
        return;
    }
    let toks = tokens(rest);
    if let Some(t) = toks.iter().find(|t| t.is_ident()) {
        def.name = t.text.to_string();
        def.signature = format!("{} {}", def.signature, def.name);
    }
}

/// Whether a definition still waiting for its body goes on after line `l`: its parameters are
/// open, the line ends mid-expression, or the next line opens the body or continues the
/// signature (`{` on its own line, `: base(x)`, `throws E`, `where T: Ord`).
fn continues(lang: Lang, code: &[&str], l: usize, p: &Pending) -> bool {
    if l >= p.since + 12 {
        return false;
    }
    let here = code[l].trim_end();
    if p.parens > 0 || here.ends_with('\\') && matches!(lang, Lang::C | Lang::Cpp) {
        return true;
    }
    if here.trim_start().starts_with('#') {
        return false;
    }
    if here.ends_with([',', '(', '=', ':', '&', '|', '+', '<']) || here.ends_with("->") {
        return true;
    }
    let Some(next) = code[l + 1..]
        .iter()
        .map(|s| s.trim())
        .find(|s| !s.is_empty())
    else {
        return false;
    };
    let heads = [
        "{",
        ":",
        "throws",
        "where",
        "->",
        "requires",
        "noexcept",
        "const",
        "override",
        "extends",
        "implements",
        "=",
        "final",
        "&&",
        "||",
        "?",
        "async",
        "rethrows",
        "permits",
    ];
    heads.iter().any(|h| {
        next.strip_prefix(h)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    }) || next.starts_with(')')
}

/// Lines of C and C++ that a preprocessor branch hides: `#if 0` blocks and every `#else` or
/// `#elif` branch, so that a function whose signature differs by platform opens one brace.
fn preprocessor_skips(lang: Lang, code: &[&str]) -> Vec<bool> {
    let mut skip = vec![false; code.len()];
    if !matches!(lang, Lang::C | Lang::Cpp) {
        return skip;
    }
    // For each open `#if`: whether its lines are skipped from here on.
    let mut open: Vec<bool> = Vec::new();
    for (l, line) in code.iter().enumerate() {
        let t = line.trim_start();
        let directive = t.strip_prefix('#').map(|d| {
            d.trim_start()
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("")
        });
        let outer = open.iter().any(|&s| s);
        match directive {
            Some("if" | "ifdef" | "ifndef") => {
                let zero = t
                    .trim_start_matches('#')
                    .trim_start()
                    .strip_prefix("if")
                    .is_some_and(|r| r.trim() == "0");
                open.push(zero);
            }
            Some("else" | "elif") => {
                if let Some(s) = open.last_mut() {
                    *s = true;
                }
            }
            Some("endif") => {
                open.pop();
            }
            _ => {}
        }
        skip[l] = outer || open.iter().any(|&s| s);
    }
    skip
}

/// Python: a definition's body is the lines indented deeper than it.
fn indented(lines: &[&str], code: &[&str]) -> Vec<Def> {
    let mut defs: Vec<Def> = Vec::new();
    // Open definitions: (indent, frame, def).
    let mut stack: Vec<(usize, Frame, usize)> = Vec::new();
    let mut parens = 0i32;
    let mut last_code = 0usize;
    for (l, line) in code.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.trim_end().is_empty() {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if parens <= 0 {
            while let Some(&(open, _, d)) = stack.last()
                && open >= indent
            {
                stack.pop();
                defs[d].end = last_code as u32 + 1;
            }
            let top = stack.last().map_or(Frame::Open, |s| s.1);
            if top != Frame::Body
                && let Some(found) = recognize(Lang::Python, line, Ctx::default())
            {
                let depth = stack.iter().filter(|s| s.1 == Frame::Type).count() as u8;
                let mut def = def_at(Lang::Python, lines, code, l, found, depth);
                if def.kind == Kind::Constant {
                    // Module constants are many in settings files; the map leaves them out.
                    def.kind = Kind::Variable;
                }
                let kind = def.kind;
                defs.push(def);
                if matches!(kind, Kind::Type | Kind::Function) {
                    stack.push((indent, frame_of(kind), defs.len() - 1));
                }
            }
        }
        parens += line.matches(['(', '[', '{']).count() as i32;
        parens -= line.matches([')', ']', '}']).count() as i32;
        last_code = l;
    }
    for (_, _, d) in stack {
        defs[d].end = last_code as u32 + 1;
    }
    defs
}

/// Ruby: `class`, `module`, `def` and block keywords open, `end` closes.
fn ended(lines: &[&str], code: &[&str]) -> Vec<Def> {
    let mut defs: Vec<Def> = Vec::new();
    let mut stack: Vec<(Frame, Option<usize>)> = Vec::new();
    for (l, line) in code.iter().enumerate() {
        let top = stack.last().map_or(Frame::Open, |f| f.0);
        let mut opened_def = None;
        if top != Frame::Body
            && let Some(found) = recognize(Lang::Ruby, line, Ctx::default())
        {
            let depth = stack.iter().filter(|f| f.0 == Frame::Type).count() as u8;
            defs.push(def_at(Lang::Ruby, lines, code, l, found, depth));
            opened_def = Some(defs.len() - 1);
        }
        ruby_line(line, l, opened_def, &mut stack, &mut defs);
    }
    let last = lines.len() as u32;
    for (_, def) in stack {
        if let Some(d) = def {
            defs[d].end = last;
        }
    }
    defs
}

/// Opens and closes the blocks of one line of Ruby.
fn ruby_line(
    line: &str,
    l: usize,
    def: Option<usize>,
    stack: &mut Vec<(Frame, Option<usize>)>,
    defs: &mut [Def],
) {
    let toks = tokens(line);
    let first_word = toks.iter().position(|t| {
        !matches!(
            t.text,
            "private" | "protected" | "public" | "module_function"
        )
    });
    for (i, t) in toks.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| toks[j].text);
        let next = toks.get(i + 1).map(|t| t.text);
        // `x.class`, `:end`, `class:`, are not keywords.
        if matches!(prev, Some("." | ":")) || next == Some(":") && t.is_ident() {
            continue;
        }
        let statement_start =
            Some(i) == first_word || matches!(prev, Some("=" | "(" | "||" | "&&"));
        let opens = match t.text {
            "def" => !endless_def(&toks, i),
            "class" | "module" => Some(i) == first_word,
            "if" | "unless" | "while" | "until" | "case" | "begin" | "for" => statement_start,
            "do" | "{" => true,
            _ => false,
        };
        if opens {
            let own = matches!(t.text, "def" | "class" | "module")
                && def.is_some()
                && !stack_has(stack, def);
            let frame = match (own, def) {
                (true, Some(d)) => (frame_of(defs[d].kind), Some(d)),
                _ => (Frame::Body, None),
            };
            stack.push(frame);
        } else if matches!(t.text, "end" | "}")
            && let Some((_, d)) = stack.pop()
            && let Some(d) = d
        {
            defs[d].end = l as u32 + 1;
        }
    }
}

fn stack_has(stack: &[(Frame, Option<usize>)], def: Option<usize>) -> bool {
    stack.iter().any(|f| f.1.is_some() && f.1 == def)
}

/// `def name = expr`, `def name(x) = expr`: a method without a body to close.
fn endless_def(toks: &[super::tokens::Tok<'_>], i: usize) -> bool {
    let mut j = i + 1;
    if toks.get(j + 1).is_some_and(|t| t.text == ".") {
        j += 2;
    }
    j += 1;
    if toks.get(j).is_some_and(|t| t.text == "?" || t.text == "!") {
        j += 1;
    }
    if toks.get(j).is_some_and(|t| t.text == "(") {
        j = super::tokens::skip_group(toks, j);
    }
    toks.get(j).is_some_and(|t| t.text == "=")
        && toks
            .get(j + 1)
            .is_none_or(|t| t.text != "=" && t.text != "(")
}

/// The signature of a definition starting on line `l`: its lines up to where its parameters
/// close (at most six), without the body's opening, joined by single spaces.
fn signature(lang: Lang, lines: &[&str], code: &[&str], l: usize) -> String {
    let mut sig = String::new();
    let mut depth = 0i32;
    for (k, line) in code.iter().enumerate().skip(l).take(6) {
        let text = lines[k].trim();
        let blank = line.trim();
        let cut = body_start(lang, blank).unwrap_or(blank.len());
        let part = text.get(..cut).unwrap_or(text).trim_end();
        if !sig.is_empty() && !part.is_empty() && !sig.ends_with('(') {
            sig.push(' ');
        }
        sig.push_str(part);
        depth += blank[..cut].matches(['(', '[']).count() as i32;
        depth -= blank[..cut].matches([')', ']']).count() as i32;
        if depth <= 0 || cut < blank.len() {
            break;
        }
    }
    let sig = tidy(lang, &sig);
    if sig.chars().count() > MAX_SIGNATURE {
        let cut: String = sig.chars().take(MAX_SIGNATURE).collect();
        format!("{cut}…")
    } else {
        sig
    }
}

/// Where the body starts on a (blanked, trimmed) line: a `{` outside parentheses, Python's
/// final `:`.
fn body_start(lang: Lang, line: &str) -> Option<usize> {
    if lang == Lang::Python {
        return line.ends_with(':').then(|| line.len() - 1);
    }
    if lang == Lang::Ruby {
        return None;
    }
    let mut depth = 0;
    for (i, c) in line.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' if depth <= 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// A signature without a trailing `;` or `,`, and, in JavaScript, without a constant's value.
fn tidy(lang: Lang, sig: &str) -> String {
    let mut sig = sig.trim_end().trim_end_matches([';', '{']).trim_end();
    if lang == Lang::Script
        && let Some(i) = sig.find(" = ")
        && !sig[..i].contains('(')
    {
        let value = sig[i + 3..].trim_start();
        let value = value.strip_prefix("async").map_or(value, str::trim_start);
        let function = value.starts_with("function")
            || value.starts_with('(') && sig.contains("=>")
            || value.split_whitespace().nth(1) == Some("=>");
        if !function {
            sig = &sig[..i];
        }
    }
    sig.to_string()
}
