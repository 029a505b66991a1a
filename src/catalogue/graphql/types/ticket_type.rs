//! `TicketType` (ADULT, CHILD, ... and the types operators defined) and `TicketRule`.

use async_graphql::SimpleObject;
use chrono::{DateTime, Utc};

use crate::catalogue::store::documents::TicketTypeDoc;
use crate::domain::pricing::TicketType as Code;
use crate::store::documents::TicketRuleDoc;

/// A kind of ticket a showtime's price matrix prices: built in (ADULT, CHILD, STUDENT,
/// SENIOR) or defined by an operator (a chain's member price).
#[derive(SimpleObject)]
pub struct TicketType {
    /// Its code, as prices and holds name it: "CHILD", "MEMBER".
    pub code: String,
    /// What buyers are shown.
    pub name: String,
    /// Whether every showtime may price it without an operator defining it.
    pub built_in: bool,
    /// The code of the operator who defined it; null for a built-in type.
    pub defined_by: Option<String>,
    /// When it was defined; null for a built-in type.
    pub created_at: Option<DateTime<Utc>>,
}

impl TicketType {
    /// The built-in types, with their names.
    pub fn built_ins() -> Vec<TicketType> {
        [
            ("ADULT", "成人票"),
            ("CHILD", "儿童票"),
            ("STUDENT", "学生票"),
            ("SENIOR", "老人票"),
        ]
        .into_iter()
        .map(|(code, name)| TicketType {
            code: code.to_owned(),
            name: name.to_owned(),
            built_in: true,
            defined_by: None,
            created_at: None,
        })
        .collect()
    }
}

impl From<TicketTypeDoc> for TicketType {
    fn from(doc: TicketTypeDoc) -> Self {
        TicketType {
            code: doc.code.to_string(),
            name: doc.name,
            built_in: false,
            defined_by: Some(doc.defined_by),
            created_at: Some(doc.created_at),
        }
    }
}

/// A ticket type a showtime does not sell, and the rule saying why.
#[derive(SimpleObject)]
pub struct TicketRule {
    /// The type refused, e.g. "CHILD".
    pub ticket_type: String,
    /// The rule, as buyers are shown it.
    pub rule: String,
}

impl From<&TicketRuleDoc> for TicketRule {
    fn from(doc: &TicketRuleDoc) -> Self {
        TicketRule {
            ticket_type: Code::to_string(&doc.ticket_type),
            rule: doc.rule.clone(),
        }
    }
}
