//! What a cinema, a hall and a movie may hold: the rules every catalogue write checks, whether
//! it comes from an operator's mutation or from the demo generator (the store's insert
//! functions check the same rules). Each returns the value as stored (trimmed) or
//! BAD_USER_INPUT naming the argument and what is wrong with it.

use crate::domain::text;
use crate::error::ApiError;

/// Longest cinema address, in characters.
pub const MAX_ADDRESS_CHARS: usize = 200;
/// Most amenities a cinema lists, and the longest one.
pub const MAX_AMENITIES: usize = 20;
pub const MAX_AMENITY_CHARS: usize = 30;
/// Longest hall name.
pub const MAX_HALL_NAME_CHARS: usize = 50;
/// Longest projection format ("2D", "IMAX", "DOLBY", "4DX").
pub const MAX_FORMAT_CHARS: usize = 16;
/// The first year a movie can have (the Lumière brothers' first screening was 1895; Roundhay
/// Garden Scene is 1888).
pub const FIRST_MOVIE_YEAR: i32 = 1888;
/// How many years ahead a movie may be announced.
pub const YEARS_AHEAD: i32 = 5;
/// The longest runtime accepted, in minutes.
pub const MAX_RUNTIME_MINUTES: i32 = 600;
/// Most genres of a movie, and the longest genre.
pub const MAX_GENRES: usize = 5;
pub const MAX_GENRE_CHARS: usize = 20;
/// Most directors and top-billed actors of a movie's summary.
pub const MAX_PEOPLE: usize = 10;
/// Longest poster URL.
pub const MAX_URL_CHARS: usize = 500;
/// Longest plot (the summary line) and full plot.
pub const MAX_PLOT_CHARS: usize = 1_000;
pub const MAX_FULL_PLOT_CHARS: usize = 10_000;
/// Most languages and countries of a movie.
pub const MAX_PLACES: usize = 10;
/// Most members of a movie's full cast.
pub const MAX_CAST: usize = 200;

/// A name of at most 100 characters (a cinema's, a movie's title, a person's).
pub fn name(argument: &str, value: &str) -> Result<String, ApiError> {
    text::required(argument, value)
}

/// A cinema's street address.
pub fn address(value: &str) -> Result<String, ApiError> {
    text::required_within("address", value, MAX_ADDRESS_CHARS)
}

/// A point on Earth: latitude in [-90, 90], longitude in [-180, 180].
pub fn location(latitude: f64, longitude: f64) -> Result<(), ApiError> {
    if !(latitude.is_finite() && (-90.0..=90.0).contains(&latitude)) {
        return Err(ApiError::bad_input(format!(
            "location.latitude {latitude} is not between -90 and 90"
        )));
    }
    if !(longitude.is_finite() && (-180.0..=180.0).contains(&longitude)) {
        return Err(ApiError::bad_input(format!(
            "location.longitude {longitude} is not between -180 and 180"
        )));
    }
    Ok(())
}

/// A cinema's amenities ("停车场", "IMAX"): distinct, short, at most [`MAX_AMENITIES`].
pub fn amenities(values: &[String]) -> Result<Vec<String>, ApiError> {
    list("amenities", values, MAX_AMENITIES, MAX_AMENITY_CHARS)
}

/// A hall's name ("1号厅", "IMAX厅").
pub fn hall_name(value: &str) -> Result<String, ApiError> {
    text::required_within("name", value, MAX_HALL_NAME_CHARS)
}

/// A projection format: capital letters and digits, like 2D, 3D, IMAX, DOLBY, 4DX.
pub fn format(value: &str) -> Result<String, ApiError> {
    let value = value.trim();
    let sane = !value.is_empty()
        && value.len() <= MAX_FORMAT_CHARS
        && value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    if sane {
        Ok(value.to_owned())
    } else {
        Err(ApiError::bad_input(format!(
            "format `{value}` must be 1 to {MAX_FORMAT_CHARS} capital letters or digits, like 2D, \
             IMAX or 4DX"
        )))
    }
}

/// A movie's year: from [`FIRST_MOVIE_YEAR`] to [`YEARS_AHEAD`] after `this_year`.
pub fn year(value: i32, this_year: i32) -> Result<i32, ApiError> {
    let last = this_year + YEARS_AHEAD;
    if (FIRST_MOVIE_YEAR..=last).contains(&value) {
        Ok(value)
    } else {
        Err(ApiError::bad_input(format!(
            "year {value} is not between {FIRST_MOVIE_YEAR} and {last}"
        )))
    }
}

/// A runtime in minutes: 1 to [`MAX_RUNTIME_MINUTES`].
pub fn runtime_minutes(value: i32) -> Result<i32, ApiError> {
    if (1..=MAX_RUNTIME_MINUTES).contains(&value) {
        Ok(value)
    } else {
        Err(ApiError::bad_input(format!(
            "runtimeMinutes {value} is not between 1 and {MAX_RUNTIME_MINUTES}"
        )))
    }
}

/// A movie's genres: one to [`MAX_GENRES`], distinct.
pub fn genres(values: &[String]) -> Result<Vec<String>, ApiError> {
    if values.is_empty() {
        return Err(ApiError::bad_input("genres needs at least one genre"));
    }
    list("genres", values, MAX_GENRES, MAX_GENRE_CHARS)
}

/// Directors or top cast: at most [`MAX_PEOPLE`] names.
pub fn people(argument: &str, values: &[String]) -> Result<Vec<String>, ApiError> {
    list(argument, values, MAX_PEOPLE, text::MAX_TEXT_CHARS)
}

/// Languages or countries: at most [`MAX_PLACES`].
pub fn places(argument: &str, values: &[String]) -> Result<Vec<String>, ApiError> {
    list(argument, values, MAX_PLACES, text::MAX_TEXT_CHARS)
}

/// A poster's address: an `https://` URL with a host, no spaces or control characters.
pub fn poster_url(value: &str) -> Result<String, ApiError> {
    let value = value.trim();
    let host = value.strip_prefix("https://").map(|rest| {
        rest.split(['/', '?', '#'])
            .next()
            .unwrap_or_default()
            .to_owned()
    });
    let clean = !value.chars().any(|c| c.is_whitespace() || c.is_control());
    match host {
        Some(host) if !host.is_empty() && clean && value.len() <= MAX_URL_CHARS => {
            Ok(value.to_owned())
        }
        _ => Err(ApiError::bad_input(format!(
            "posterUrl must be an https:// address of at most {MAX_URL_CHARS} characters, \
             without spaces"
        ))),
    }
}

/// A plot: the one-paragraph summary, or (`full`) the whole story. May be empty.
pub fn plot(argument: &str, value: &str, full: bool) -> Result<String, ApiError> {
    let max = if full {
        MAX_FULL_PLOT_CHARS
    } else {
        MAX_PLOT_CHARS
    };
    let value = value.trim();
    if value.is_empty() {
        return Ok(String::new());
    }
    // Line breaks belong in a story; other control characters do not.
    if let Some(control) = value.chars().find(|c| c.is_control() && *c != '\n') {
        return Err(ApiError::bad_input(format!(
            "{argument} contains the control character U+{:04X}",
            u32::from(control)
        )));
    }
    let chars = value.chars().count();
    if chars > max {
        return Err(ApiError::bad_input(format!(
            "{argument} has {chars} characters; at most {max}"
        )));
    }
    Ok(value.to_owned())
}

/// One cast member: a name and the character played (which may be empty).
pub fn cast_member(
    index: usize,
    name: &str,
    character: &str,
) -> Result<(String, String), ApiError> {
    let name = text::required(&format!("cast[{index}].name"), name)?;
    let character = if character.trim().is_empty() {
        String::new()
    } else {
        text::required(&format!("cast[{index}].character"), character)?
    };
    Ok((name, character))
}

/// The size of a full cast: at most [`MAX_CAST`].
pub fn cast_size(count: usize) -> Result<(), ApiError> {
    if count > MAX_CAST {
        return Err(ApiError::bad_input(format!(
            "cast has {count} members; at most {MAX_CAST}"
        )));
    }
    Ok(())
}

/// A list of short texts: each valid, none twice, at most `max_items`.
fn list(
    argument: &str,
    values: &[String],
    max_items: usize,
    max_chars: usize,
) -> Result<Vec<String>, ApiError> {
    if values.len() > max_items {
        return Err(ApiError::bad_input(format!(
            "{argument} has {} entries; at most {max_items}",
            values.len()
        )));
    }
    let mut out: Vec<String> = Vec::with_capacity(values.len());
    for (index, value) in values.iter().enumerate() {
        let value = text::required_within(&format!("{argument}[{index}]"), value, max_chars)?;
        if out.contains(&value) {
            return Err(ApiError::bad_input(format!(
                "{argument} names `{value}` twice"
            )));
        }
        out.push(value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<impl std::fmt::Debug, ApiError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn cinema_fields() {
        assert_eq!(name("name", " 万达影城 ").unwrap(), "万达影城");
        assert!(message(name("name", " ")).contains("name must not be empty"));
        assert!(message(address(&"路".repeat(201))).contains("at most 200"));
        assert!(location(39.9, 116.4).is_ok());
        assert!(message(location(91.0, 0.0)).contains("latitude 91"));
        assert!(message(location(0.0, -181.0)).contains("longitude -181"));
        assert!(message(location(f64::NAN, 0.0)).contains("latitude"));
        let twice = vec!["停车场".to_owned(), " 停车场".to_owned()];
        assert!(message(amenities(&twice)).contains("names `停车场` twice"));
        let many = (0..21).map(|i| i.to_string()).collect::<Vec<_>>();
        assert!(message(amenities(&many)).contains("21 entries; at most 20"));
        assert!(message(amenities(&["".to_owned()])).contains("amenities[0] must not be empty"));
    }

    #[test]
    fn hall_fields() {
        assert_eq!(format(" IMAX ").unwrap(), "IMAX");
        assert_eq!(format("4DX").unwrap(), "4DX");
        for bad in ["", "imax", "I MAX", "ABCDEFGHIJKLMNOPQ"] {
            assert!(
                message(format(bad)).contains("capital letters or digits"),
                "{bad}"
            );
        }
        assert!(message(hall_name(&"厅".repeat(51))).contains("at most 50"));
    }

    #[test]
    fn movie_fields() {
        assert_eq!(year(2026, 2026).unwrap(), 2026);
        assert!(message(year(1887, 2026)).contains("between 1888 and 2031"));
        assert!(message(year(2032, 2026)).contains("year 2032"));
        assert!(message(runtime_minutes(0)).contains("runtimeMinutes 0"));
        assert!(message(runtime_minutes(601)).contains("between 1 and 600"));
        assert!(message(genres(&[])).contains("at least one genre"));
        assert!(poster_url("https://img.example.cn/p/1.jpg").is_ok());
        for bad in [
            "http://x.cn/1.jpg",
            "https://",
            "https:///x",
            "https://x.cn/a b.jpg",
        ] {
            assert!(message(poster_url(bad)).contains("https://"), "{bad}");
        }
        assert_eq!(plot("plot", "  ", false).unwrap(), "");
        assert!(plot("fullPlot", "第一段\n第二段", true).is_ok());
        assert!(message(plot("plot", "a\u{7}", false)).contains("U+0007"));
        assert!(message(plot("plot", &"字".repeat(1001), false)).contains("at most 1000"));
        assert!(message(cast_member(3, "", "主角")).contains("cast[3].name"));
        assert_eq!(
            cast_member(0, "演员甲", " ").unwrap(),
            ("演员甲".to_owned(), String::new())
        );
        assert!(message(cast_size(201)).contains("at most 200"));
    }
}
