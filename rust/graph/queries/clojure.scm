; Clojure: a list's head symbol is a call.
(list_lit . value: (sym_lit name: (sym_name) @name)) @reference.call
