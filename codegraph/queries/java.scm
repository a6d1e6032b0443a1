; Java.
;
; Calls: @call is the call, @name the method or class called, @qualifier
; what it is called on (a value, this, super, a class).
; Imports: @import is the whole declaration, read in lang_java.go.

; Calls of a method by its name alone: helper()
(method_invocation !object name: (identifier) @name) @call
; Calls on a value, this, super or a class: s.pad(), this.run(), Strings.join()
(method_invocation object: (_) @qualifier name: (identifier) @name) @call
; Constructions: new Foo(), new Foo<>(), new a.b.Foo()
(object_creation_expression type: (type_identifier) @name) @call
(object_creation_expression type: (generic_type (type_identifier) @name)) @call
(object_creation_expression type: (scoped_type_identifier (type_identifier) @name .)) @call

; Imports: import a.b.C; import a.b.*; import static a.b.C.m;
(import_declaration) @import
