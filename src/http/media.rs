//! Content negotiation (GraphQL over HTTP): which media type an answer is written in, chosen
//! from the request's `Accept`, and what that choice means for the status code. Under
//! `application/json` a well-formed request is answered 200 whatever its GraphQL errors; under
//! `application/graphql-response+json` a request error (the document did not parse or
//! validate, its variables did not coerce, a limit refused it) is a 400.

use axum::http::{header, HeaderMap, HeaderValue};

/// What an answer can be written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    /// `application/graphql-response+json`: the status code tells a request error from a
    /// response with data.
    GraphqlResponse,
    /// `application/json`: the legacy type every client understands, and the default.
    Json,
    /// The playground, for a browser opening `GET /graphql`.
    Html,
}

impl Media {
    const GRAPHQL_RESPONSE: &'static str = "application/graphql-response+json";
    const JSON: &'static str = "application/json";

    /// The `Content-Type` of an answer in this media type.
    pub fn content_type(self) -> HeaderValue {
        HeaderValue::from_static(match self {
            Media::GraphqlResponse => Self::GRAPHQL_RESPONSE,
            Media::Json => Self::JSON,
            Media::Html => "text/html; charset=utf-8",
        })
    }

    /// The media ranges (of an `Accept` header) this type answers, most specific first.
    /// Wildcards choose `application/json`, as the specification asks until clients move on:
    /// `application/graphql-response+json` is written only for clients that name it, and the
    /// playground only for those that name HTML.
    fn ranges(self) -> &'static [&'static str] {
        match self {
            Media::GraphqlResponse => &[Self::GRAPHQL_RESPONSE],
            Media::Json => &[Self::JSON, "application/*", "*/*"],
            Media::Html => &["text/html", "text/*"],
        }
    }
}

/// The value of the `Accept` header a 406 answers with: the types a GraphQL answer can take.
pub const ACCEPTABLE: &str = "application/graphql-response+json, application/json";

/// The type to answer in, of `offers` (in the server's order of preference): the one the
/// client weighs highest (`q`), ties going to the earlier offer. No `Accept` at all (or a
/// blank one) means `application/json`. `None` when the client accepts none of them: a 406.
pub fn negotiate(headers: &HeaderMap, offers: &[Media]) -> Option<Media> {
    let mut entries = headers
        .get_all(header::ACCEPT)
        .iter()
        .map(|value| value.to_str().unwrap_or("?"))
        .flat_map(|value| value.split(','))
        .filter(|entry| !entry.trim().is_empty())
        .peekable();
    if entries.peek().is_none() {
        return offers.contains(&Media::Json).then_some(Media::Json);
    }
    // A range that does not parse is passed over: it accepts nothing.
    let ranges: Vec<AcceptRange> = entries.filter_map(AcceptRange::parse).collect();
    let mut best: Option<(Media, f32)> = None;
    for &offer in offers {
        let quality = quality_of(offer, &ranges);
        if quality > 0.0 && best.is_none_or(|(_, q)| quality > q) {
            best = Some((offer, quality));
        }
    }
    best.map(|(media, _)| media)
}

/// The weight the client gives `offer`: that of the most specific range naming it (so
/// `application/json;q=0, */*` refuses JSON), 0 when none does.
fn quality_of(offer: Media, ranges: &[AcceptRange]) -> f32 {
    offer
        .ranges()
        .iter()
        .find_map(|name| {
            ranges
                .iter()
                .find(|range| range.media.eq_ignore_ascii_case(name))
        })
        .map_or(0.0, |range| range.quality)
}

/// One media range of an `Accept` header.
#[derive(Debug)]
struct AcceptRange<'a> {
    media: &'a str,
    quality: f32,
}

impl<'a> AcceptRange<'a> {
    /// `type/subtype;param=value;q=0.5`. A range asking for a charset other than UTF-8 (the
    /// only one answers are written in) counts as not accepting; a malformed one is skipped.
    fn parse(text: &'a str) -> Option<Self> {
        let mut parts = text.split(';').map(str::trim);
        let media = parts.next().filter(|media| media.contains('/'))?;
        let mut quality = 1.0;
        for parameter in parts {
            let (name, value) = parameter.split_once('=')?;
            let value = value.trim().trim_matches('"');
            match name.trim().to_ascii_lowercase().as_str() {
                "q" => {
                    quality = value
                        .parse::<f32>()
                        .ok()
                        .filter(|q| (0.0..=1.0).contains(q))?
                }
                "charset" if !matches!(value.to_ascii_lowercase().as_str(), "utf-8" | "utf8") => {
                    quality = 0.0
                }
                _ => {}
            }
            if quality == 0.0 {
                break;
            }
        }
        Some(AcceptRange { media, quality })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRAPHQL: &[Media] = &[Media::GraphqlResponse, Media::Json];
    const GET: &[Media] = &[Media::GraphqlResponse, Media::Json, Media::Html];

    fn accept(value: &str, offers: &[Media]) -> Option<Media> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        negotiate(&headers, offers)
    }

    #[test]
    fn no_accept_means_json() {
        assert_eq!(negotiate(&HeaderMap::new(), GRAPHQL), Some(Media::Json));
        assert_eq!(accept("  ", GRAPHQL), Some(Media::Json));
    }

    #[test]
    fn wildcards_mean_json_and_the_new_type_must_be_named() {
        assert_eq!(accept("*/*", GRAPHQL), Some(Media::Json));
        assert_eq!(accept("application/*", GRAPHQL), Some(Media::Json));
        assert_eq!(
            accept("application/graphql-response+json", GRAPHQL),
            Some(Media::GraphqlResponse)
        );
        assert_eq!(
            accept(
                "application/json, application/graphql-response+json",
                GRAPHQL
            ),
            Some(Media::GraphqlResponse),
            "equal weights: the server's preference"
        );
    }

    #[test]
    fn weights_decide() {
        // What Apollo Client sends.
        let apollo = "application/graphql-response+json,application/json;q=0.9";
        assert_eq!(accept(apollo, GRAPHQL), Some(Media::GraphqlResponse));
        let json_first = "application/graphql-response+json;q=0.5, application/json";
        assert_eq!(accept(json_first, GRAPHQL), Some(Media::Json));
        assert_eq!(accept("application/json;q=0, */*", GRAPHQL), None);
        assert_eq!(
            accept("application/json; q=0.3", GRAPHQL),
            Some(Media::Json)
        );
    }

    #[test]
    fn charsets_other_than_utf8_are_not_written() {
        assert_eq!(
            accept("application/json; charset=utf-8", GRAPHQL),
            Some(Media::Json)
        );
        assert_eq!(
            accept("application/json; charset=iso-8859-1", GRAPHQL),
            None
        );
    }

    #[test]
    fn unacceptable_types_get_nothing() {
        assert_eq!(accept("text/plain", GRAPHQL), None);
        assert_eq!(accept("image/png, text/html", GRAPHQL), None);
        assert_eq!(accept("nonsense", GRAPHQL), None);
        assert_eq!(accept("application/json;q=2", GRAPHQL), None);
    }

    #[test]
    fn browsers_get_the_playground_on_get_and_tools_get_json() {
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert_eq!(accept(browser, GET), Some(Media::Html));
        assert_eq!(accept("*/*", GET), Some(Media::Json), "curl");
        assert_eq!(accept("application/json", GET), Some(Media::Json));
    }
}
