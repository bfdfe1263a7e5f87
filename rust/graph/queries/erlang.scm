; Erlang: local and remote calls, includes, behaviours.
(call expr: (atom) @name) @reference.call
(call expr: (remote fun: (atom) @name)) @reference.call
(pp_include file: (_) @name) @reference.import
(pp_include_lib file: (_) @name) @reference.import
(behaviour_attribute name: (_) @name) @reference.inherit
