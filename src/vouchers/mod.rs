//! Vouchers (issue 36, under way): codes an operator makes that change what a hold's seats
//! cost when a channel redeems one. So far their pure rules (`rules`: codes, their keyed hash,
//! effects and the rounding rule, scopes, validity, caps); making, listing and redeeming them
//! come next.

pub mod rules;
