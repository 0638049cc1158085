//! Who papayu commits as: git's own identity rules, including the `GIT_*_NAME/EMAIL/DATE`
//! environment variables that libgit2 does not read by itself.

use git2::{Repository, Signature, Time};

/// The committer identity for papayu's commits (proposal commits, notes, operation log).
pub fn signature(repo: &Repository) -> Signature<'static> {
    identity(repo, "COMMITTER")
}

/// The author identity for proposal commits.
pub fn author(repo: &Repository) -> Signature<'static> {
    identity(repo, "AUTHOR")
}

fn identity(repo: &Repository, role: &str) -> Signature<'static> {
    let config = repo.config().ok();
    let from_config = |key: &str| config.as_ref().and_then(|c| c.get_string(key).ok());
    let name = std::env::var(format!("GIT_{role}_NAME"))
        .ok()
        .or_else(|| from_config("user.name"))
        .unwrap_or_else(|| "git-papayu".to_string());
    let email = std::env::var(format!("GIT_{role}_EMAIL"))
        .ok()
        .or_else(|| from_config("user.email"))
        .unwrap_or_else(|| "papayu@localhost".to_string());
    let time = std::env::var(format!("GIT_{role}_DATE"))
        .ok()
        .and_then(|d| parse_date(&d));
    let made = match time {
        Some(t) => Signature::new(&name, &email, &t),
        None => Signature::now(&name, &email),
    };
    made.or_else(|_| Signature::now("git-papayu", "papayu@localhost"))
        .expect("a fixed ASCII identity is always valid")
}

/// Parses the date forms tests and scripts use: `@<secs> [+hhmm]`, `<secs> +hhmm`, and RFC 3339
/// `YYYY-MM-DDTHH:MM:SS(Z|±hh:mm)`.
fn parse_date(text: &str) -> Option<Time> {
    let text = text.trim();
    let raw = text.strip_prefix('@').unwrap_or(text);
    let mut parts = raw.split_whitespace();
    if let Some(Ok(secs)) = parts.next().map(str::parse::<i64>) {
        let offset = parts.next().and_then(parse_offset).unwrap_or(0);
        return Some(Time::new(secs, offset));
    }
    parse_rfc3339(text)
}

fn parse_offset(text: &str) -> Option<i32> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let digits: String = digits.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    Some(sign * (hours * 60 + minutes))
}

fn parse_rfc3339(text: &str) -> Option<Time> {
    let (date, rest) = text.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (year, month, day) = (d.next()??, d.next()??, d.next()??);
    let (clock, offset) = if let Some(clock) = rest.strip_suffix('Z') {
        (clock, 0)
    } else {
        let at = rest.rfind(['+', '-'])?;
        (&rest[..at], parse_offset(&rest[at..])?)
    };
    let mut c = clock
        .split(':')
        .map(|p| p.split('.').next().unwrap_or(p).parse::<i64>().ok());
    let (hour, minute, second) = (c.next()??, c.next()??, c.next().flatten().unwrap_or(0));
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - i64::from(offset) * 60;
    Some(Time::new(secs, offset))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_git_date_forms() {
        assert_eq!(
            parse_date("@1700000000 +0100").map(|t| (t.seconds(), t.offset_minutes())),
            Some((1_700_000_000, 60))
        );
        assert_eq!(
            parse_date("1700000000 -0230").map(|t| t.offset_minutes()),
            Some(-150)
        );
        assert_eq!(
            parse_date("2026-01-01T00:00:00Z").map(|t| t.seconds()),
            Some(1_767_225_600)
        );
        assert_eq!(
            parse_date("1970-01-02T01:00:00+01:00").map(|t| t.seconds()),
            Some(86_400)
        );
        assert!(parse_date("next tuesday").is_none());
    }
}
