//! Durations: parsing (`"33.333ms"`, `"500us"`, `2000000`) and printing.

/// Parses a duration string: a decimal number and a unit (`ns`, `us`, `µs`, `ms`, `s`), e.g.
/// `"33.333ms"`, `"500us"`, `"2ms"`, `"1_500ns"`. The result must be a whole number of ns.
pub(crate) fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!(
            "`{text}` is not a valid duration: durations cannot be negative"
        ));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .ok_or_else(|| {
            format!(
                "`{text}` has no unit; write e.g. \"{t}ms\" or \"{t}us\" (or an integer for ns)"
            )
        })?;
    let (number, unit) = t.split_at(split);
    let unit_ns: u128 = match unit.trim() {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        other => {
            return Err(format!(
                "`{text}`: unknown unit `{other}` (expected ns, us, µs, ms or s)"
            ));
        }
    };
    let number: String = number.chars().filter(|&c| c != '_').collect();
    let (int, frac) = number.split_once('.').unwrap_or((&number, ""));
    if int.is_empty() || frac.contains('.') || (number.contains('.') && frac.is_empty()) {
        return Err(format!("`{text}` is not a valid duration"));
    }
    if frac.len() > 18 {
        return Err(format!("`{text}` has too many decimals"));
    }
    let parse = |s: &str| -> Result<u128, String> {
        if s.is_empty() {
            return Ok(0);
        }
        s.parse::<u128>()
            .map_err(|_| format!("`{text}` is not a valid duration"))
    };
    let int = parse(int)?;
    let scale = 10u128.pow(frac.len() as u32);
    let frac_val = parse(frac)?;
    let total = int
        .checked_mul(unit_ns)
        .and_then(|v| v.checked_add(frac_val * unit_ns / scale))
        .ok_or_else(|| format!("`{text}` is too large"))?;
    if !(frac_val * unit_ns).is_multiple_of(scale) {
        return Err(format!("`{text}` is not a whole number of nanoseconds"));
    }
    u64::try_from(total).map_err(|_| format!("`{text}` is too large"))
}

/// Prints nanoseconds as milliseconds with at least three decimals and no rounding:
/// `2000000` → `2.000ms`, `16666500` → `16.6665ms`.
pub(crate) fn ms(ns: u64) -> String {
    ms_wide(u128::from(ns))
}

/// Like [`ms`] for a signed value; the whole `i128` range prints exactly (a worst-case
/// timeline that overflows `u64` is reported with its true value).
pub(crate) fn ms_signed(ns: i128) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    format!("{sign}{}", ms_wide(ns.unsigned_abs()))
}

fn ms_wide(ns: u128) -> String {
    let whole = ns / 1_000_000;
    let rem = ns % 1_000_000;
    let mut frac = format!("{rem:06}");
    while frac.len() > 3 && frac.ends_with('0') {
        frac.pop();
    }
    format!("{whole}.{frac}ms")
}

/// Groups the digits of an integer literal by three with underscores (`33_333_000`).
pub(crate) fn grouped(v: u64) -> String {
    let digits = v.to_string();
    if digits.len() <= 4 {
        return digits;
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

/// Covers: REQ-SCH-002
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("33.333ms"), Ok(33_333_000));
        assert_eq!(parse_duration("500us"), Ok(500_000));
        assert_eq!(parse_duration("500µs"), Ok(500_000));
        assert_eq!(parse_duration("2ms"), Ok(2_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("16.6665ms"), Ok(16_666_500));
        assert_eq!(parse_duration("1_000ns"), Ok(1000));
        assert!(
            parse_duration("1.5ns")
                .unwrap_err()
                .contains("whole number")
        );
        assert!(parse_duration("2").unwrap_err().contains("no unit"));
        assert!(
            parse_duration("2 min")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(parse_duration("-2ms").is_err());
        assert!(parse_duration("2.ms").is_err());
        assert!(parse_duration("ms").is_err());
        assert!(
            parse_duration("99999999999999s")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn printing() {
        assert_eq!(ms(2_000_000), "2.000ms");
        assert_eq!(ms(16_666_500), "16.6665ms");
        assert_eq!(ms(1), "0.000001ms");
        assert_eq!(ms_signed(-1_500_000), "-1.500ms");
        // Beyond u64: exact, not clamped.
        assert_eq!(
            ms_signed(i128::from(u64::MAX) * 2),
            "36893488147419.10323ms"
        );
        assert_eq!(
            ms_signed(i128::MIN),
            "-170141183460469231731687303715884.105728ms"
        );
        assert_eq!(grouped(33_333_000), "33_333_000");
        assert_eq!(grouped(1234), "1234");
        assert_eq!(grouped(12345), "12_345");
    }
}
