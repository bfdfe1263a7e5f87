; GraphQL: named types and fragment spreads.
(named_type (name) @name) @reference.type
(fragment_spread (fragment_name (name) @name)) @reference.call
