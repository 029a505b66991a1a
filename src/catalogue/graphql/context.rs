//! What the catalogue's resolvers reach through their context: its rules (the limits on what
//! an operator writes), which `schema::prepare` attaches to every request.

use async_graphql::Context;

use crate::catalogue::rules::limits::CatalogueRules;

/// Typed access to the catalogue's rules in the request data.
pub trait CatalogueContext {
    fn catalogue_rules(&self) -> &CatalogueRules;
}

impl CatalogueContext for Context<'_> {
    fn catalogue_rules(&self) -> &CatalogueRules {
        self.data_unchecked::<CatalogueRules>()
    }
}
