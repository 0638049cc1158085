//! The one date grammar of papayu's settings and options: expiries (`papayu.oplogExpire`,
//! `papayu.traceExpire`, `gc --expire`, `trace prune --expire`) and days (`trace list --since`),
//! in git's forms, so that every setting that names a time reads the same way.

use crate::store::records::now_millis;

/// `YYYY-MM-DD` as milliseconds since the epoch (midnight UTC).
pub fn parse_day(text: &str) -> Result<i64, String> {
    let bad = || format!("{text:?} is not a date; use YYYY-MM-DD");
    let mut parts = text.trim().splitn(3, '-').map(|p| p.parse::<i64>());
    let (Some(Ok(y)), Some(Ok(m)), Some(Ok(d))) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    Ok(crate::clock::days_from_civil(y, m, d) * 86_400_000)
}

/// The cut-off an expiry setting names, in milliseconds since the epoch; what is older goes.
///
/// Accepts what git's `gc.reflogExpire` users write: `now` (everything goes), `never` or
/// `false` (nothing goes), `N.UNIT.ago` / `N UNIT ago` / `N.UNIT` with UNIT one of seconds,
/// minutes, hours, days, weeks, months (30 days) or years (365 days), a bare number of days,
/// a date `YYYY-MM-DD`, and `@SECONDS` since the epoch. Anything else is an error: a typo must
/// never expire everything.
pub fn cutoff(text: &str, now: i64) -> Result<i64, String> {
    let t = text.trim().to_ascii_lowercase();
    let bad = || {
        format!("{text:?} is not an expiry; use now, never, a date YYYY-MM-DD or e.g. 90.days.ago")
    };
    match t.as_str() {
        "now" | "all" => return Ok(i64::MAX),
        "never" | "false" => return Ok(i64::MIN),
        _ => {}
    }
    if let Ok(days) = parse_day(&t) {
        return Ok(days);
    }
    if let Some(secs) = t.strip_prefix('@') {
        let secs: i64 = secs.parse().map_err(|_| bad())?;
        return Ok(secs.saturating_mul(1000));
    }
    let words: Vec<&str> = t
        .split(['.', ' '])
        .filter(|w| !w.is_empty() && *w != "ago")
        .collect();
    let (number, unit) = match words.as_slice() {
        [n] => (n, "days"),
        [n, unit] => (n, *unit),
        _ => return Err(bad()),
    };
    let n: i64 = number.parse().ok().filter(|n| *n >= 0).ok_or_else(bad)?;
    let unit_ms: i64 = match unit.trim_end_matches('s') {
        "second" | "sec" => 1_000,
        "minute" | "min" => 60_000,
        "hour" => 3_600_000,
        "day" => 86_400_000,
        "week" => 7 * 86_400_000,
        "month" => 30 * 86_400_000,
        "year" => 365 * 86_400_000,
        _ => return Err(bad()),
    };
    Ok(now.saturating_sub(n.saturating_mul(unit_ms)))
}

/// [`cutoff`] as of now.
pub fn cutoff_now(text: &str) -> Result<i64, String> {
    cutoff(text, now_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiries_read_like_git_and_typos_are_errors() {
        let now = 1_000_000_000_000;
        let day = 86_400_000;
        assert_eq!(cutoff("now", now), Ok(i64::MAX));
        assert_eq!(cutoff("never", now), Ok(i64::MIN));
        assert_eq!(cutoff("90.days.ago", now), Ok(now - 90 * day));
        assert_eq!(cutoff("90 days ago", now), Ok(now - 90 * day));
        assert_eq!(cutoff("2.weeks", now), Ok(now - 14 * day));
        assert_eq!(cutoff("30", now), Ok(now - 30 * day));
        assert_eq!(cutoff("1.hour.ago", now), Ok(now - 3_600_000));
        assert_eq!(cutoff("1970-01-02", now), Ok(day));
        assert_eq!(cutoff("@86400", now), Ok(day));
        for typo in ["bogus", "90.dayz.ago", "-3.days", "", "1 2 3"] {
            assert!(cutoff(typo, now).is_err(), "{typo}");
        }
    }

    #[test]
    fn dates_are_midnight_utc() {
        assert_eq!(parse_day("1970-01-02"), Ok(86_400_000));
        assert_eq!(parse_day("2026-11-22"), Ok(1_795_305_600_000));
        assert!(parse_day("2026-13-01").is_err() && parse_day("yesterday").is_err());
    }
}
