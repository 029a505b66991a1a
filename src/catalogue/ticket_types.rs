//! Ticket types: defining a chain's own (`MEMBER`), and checking a showtime's price matrix and
//! refused types against the hall and the types that exist.

use std::collections::HashSet;

use serde::Serialize;

use crate::catalogue::store::documents::TicketTypeDoc;
use crate::catalogue::{TicketTypeInsert, MAX_DEFINED_TICKET_TYPES};
use crate::domain::global_id::GlobalId;
use crate::domain::pricing::{self, TicketType};
use crate::error::ApiError;
use crate::operators::{record, Audited, Keyed};
use crate::store::documents::{ChannelPriceDoc, HallDoc, TicketRuleDoc};
use crate::store::{self, Store};

/// Defines ticket type `code` named `name` for `operator`, once per idempotency key.
/// BAD_USER_INPUT when the code is built in or another request defined it, or when the
/// platform has its most types.
pub async fn define_ticket_type(
    keyed: Keyed<'_, impl Serialize>,
    code: TicketType,
    name: String,
) -> Result<TicketTypeDoc, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    if code.is_built_in() {
        return Err(ApiError::bad_input(format!(
            "ticket type {code} is built in: every showtime may price it"
        )));
    }
    keyed
        .once("defineTicketType", |attempt| {
            let (code, name) = (code.clone(), name.clone());
            async move {
                if store.count_ticket_types().await? >= MAX_DEFINED_TICKET_TYPES as u64 {
                    return Err(ApiError::bad_input(format!(
                        "the platform has {MAX_DEFINED_TICKET_TYPES} ticket types already"
                    )));
                }
                let defined = TicketTypeDoc {
                    code: code.clone(),
                    schema_version: crate::store::documents::SCHEMA_VERSION,
                    name,
                    defined_by: operator.to_owned(),
                    created_at: store::now(),
                };
                let defined = match store.insert_ticket_type(&defined).await? {
                    TicketTypeInsert::Inserted => defined,
                    // This key's earlier attempt defined it: the same type, by the same
                    // operator, with the same name.
                    TicketTypeInsert::Exists(found)
                        if attempt.taken_over()
                            && found.defined_by == operator
                            && found.name == defined.name =>
                    {
                        found
                    }
                    TicketTypeInsert::Exists(_) => {
                        return Err(ApiError::bad_input(format!(
                            "ticket type {code} exists already"
                        )))
                    }
                };
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "defineTicketType",
                        cinema: None,
                        subject: GlobalId::TicketType(code.clone()),
                        before: None,
                        after: Audited::json(&serde_json::json!({
                            "code": defined.code,
                            "name": defined.name,
                        })),
                    },
                )
                .await?;
                Ok(defined)
            }
        })
        .await
}

/// BAD_USER_INPUT unless every seat kind `prices` names is one of `hall`'s and every ticket
/// type of `prices` and `rules` exists (the operator-defined ones read in one `find`).
pub async fn check_matrix(
    store: &Store,
    hall: &HallDoc,
    prices: &[ChannelPriceDoc],
    rules: &[TicketRuleDoc],
) -> Result<(), ApiError> {
    let kinds = hall.layout.seat_kinds();
    let mut asked: Vec<TicketType> = prices
        .iter()
        .map(|price| price.ticket_type.clone())
        .chain(rules.iter().map(|rule| rule.ticket_type.clone()))
        .filter(|ticket_type| !ticket_type.is_built_in())
        .collect();
    asked.sort();
    asked.dedup();
    let defined = match asked.is_empty() {
        true => HashSet::new(),
        false => store.defined_ticket_types(&asked).await?,
    };
    let is_known =
        |ticket_type: &TicketType| ticket_type.is_built_in() || defined.contains(ticket_type);
    let matrix: Vec<_> = prices.iter().map(ChannelPriceDoc::entry).collect();
    pricing::validate_matrix(&matrix, &kinds, is_known)?;
    let rules: Vec<_> = rules.iter().map(TicketRuleDoc::rule).collect();
    pricing::validate_rules(&rules, is_known)
}
