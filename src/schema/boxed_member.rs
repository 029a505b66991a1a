//! `Boxed<T>`: a member of a merged root whose field futures are boxed, and made only for
//! the fields it has.
//!
//! A merged root (`Mutation`, `Query`) resolves a field by trying each member in turn, and
//! its future holds every member's field future inline: in a debug build the poll of that
//! future took a 600 KB stack frame for `Mutation`, a third of a test thread's stack, so a
//! deep resolver (a showtime's cancellation) overflowed it. Boxed, each member is a pointer
//! there; the cost is one allocation per root field of a request.
//!
//! A member's field future is as large as its largest field's, and making it copies all of
//! it, so a member is asked only for the fields it has (their names are read from its type
//! once, when the root is made): `confirmHold` no longer makes, copies and polls
//! `HoldMutation`'s future first. That copy was a tenth of a hold's and a confirmation's
//! instructions through the gateway (`examples/costs`).

use std::borrow::Cow;
use std::collections::HashSet;
use std::future::Future;

use async_graphql::parser::types::Field;
use async_graphql::registry::{MetaType, Registry};
use async_graphql::{
    ContainerType, Context, ContextSelectionSet, ObjectType, OutputType, Positioned, ServerResult,
    Value,
};

/// `T`, with its field futures boxed; the schema sees `T` itself.
pub struct Boxed<T> {
    inner: T,
    /// The names of `T`'s fields; `None` when its type did not say (every field is tried).
    fields: Option<HashSet<String>>,
}

impl<T: ObjectType + Default> Default for Boxed<T> {
    fn default() -> Self {
        let mut registry = Registry::default();
        T::create_type_info(&mut registry);
        let fields = match registry.types.get(T::type_name().as_ref()) {
            Some(MetaType::Object { fields, .. }) => Some(fields.keys().cloned().collect()),
            _ => None,
        };
        Boxed {
            inner: T::default(),
            fields,
        }
    }
}

impl<T> Boxed<T> {
    /// Whether `T` may resolve the field `ctx` asks for.
    fn has(&self, ctx: &Context<'_>) -> bool {
        let name = ctx.item.node.name.node.as_str();
        self.fields
            .as_ref()
            .is_none_or(|fields| fields.contains(name))
    }
}

impl<T: ContainerType> ContainerType for Boxed<T> {
    fn resolve_field(
        &self,
        ctx: &Context<'_>,
    ) -> impl Future<Output = ServerResult<Option<Value>>> + Send {
        let has = self.has(ctx);
        async move {
            match has {
                true => Box::pin(self.inner.resolve_field(ctx)).await,
                false => Ok(None),
            }
        }
    }

    fn find_entity(
        &self,
        ctx: &Context<'_>,
        params: &Value,
    ) -> impl Future<Output = ServerResult<Option<Value>>> + Send {
        Box::pin(self.inner.find_entity(ctx, params))
    }
}

impl<T: OutputType> OutputType for Boxed<T> {
    fn type_name() -> Cow<'static, str> {
        T::type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        T::create_type_info(registry)
    }

    fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> impl Future<Output = ServerResult<Value>> + Send {
        Box::pin(self.inner.resolve(ctx, field))
    }
}

impl<T: ObjectType> ObjectType for Boxed<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A member knows its own fields, and only those: the others are never asked of it.
    #[test]
    fn a_member_knows_its_fields() {
        let holds = Boxed::<crate::holds::graphql::HoldMutation>::default();
        let fields = holds.fields.expect("read from its type");
        assert!(fields.contains("releaseHold") && fields.contains("extendHold"));
        assert!(!fields.contains("holdSeats"), "{fields:?}");
        assert!(!fields.contains("confirmHold"), "{fields:?}");
        let orders = Boxed::<crate::orders::graphql::OrderMutation>::default();
        assert!(orders.fields.expect("read").contains("confirmHold"));
    }
}
