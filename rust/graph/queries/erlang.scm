; Erlang: local and remote calls, local `fun f/N` references, includes, behaviours. Call names get
; their arity in Rust (`parse/1`), as Erlang's definitions are named.
(call expr: (atom) @name) @reference.call
(remote module: (remote_module module: (atom) @receiver) fun: (call expr: (atom) @name)) @reference.call
(internal_fun fun: (atom) @name) @reference.call
(pp_include file: (_) @name) @reference.import
(pp_include_lib file: (_) @name) @reference.import
(behaviour_attribute name: (_) @name) @reference.inherit
