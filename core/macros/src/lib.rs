//! stepframe-macros: what a behaviour's code already says, derived so nobody
//! writes it twice. Use them through `stepframe-core`, which re-exports both
//! (`stepframe_core::behaviour` and `stepframe_core::Inspect`); the generated
//! code names `::stepframe_core`, so a crate using them depends on it.
//!
//! | macro | on | derives |
//! |---|---|---|
//! | [`macro@behaviour`] | an `impl Behaviour for T` block | `hooks()` from the hook methods the block defines, and `inspect()` from `T`'s [`Inspect`](derive@Inspect) |
//! | [`Inspect`](derive@Inspect) | a struct or an enum | the inspector's field table: one row per field, with a stable path, a unit and the field's doc line |
//!
//! Why derive the hook set: a hand-written `hooks()` is a second statement
//! of a fact the methods already make, and the two drift. A set that says
//! too much puts the behaviour in hook lists it has no code for: it is
//! called, timed and hit by breakpoints there (phantom hits); one that says
//! too little silently skips a hook the behaviour does define. Reading the
//! method names cannot drift.

#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DeriveInput, Fields as SynFields, ImplItem, ItemImpl, LitStr,
    parse_macro_input,
};

/// Which hook bit each `Behaviour` method stands for. `on_tear` runs as a
/// contact hook (core's `Behaviour::on_tear` docs), and `routine` is called
/// through the scheduler, not a hook list, so it has no bit.
const HOOK_METHODS: [(&str, &str); 8] = [
    ("start", "START"),
    ("update", "UPDATE"),
    ("flow_tick", "FLOW_TICK"),
    ("fixed_update", "FIXED_UPDATE"),
    // Only a behaviour that defines it has it: the engine calls it back
    // from inside the step (core's `Hooks::MID_STEP` says why).
    ("mid_step", "MID_STEP"),
    ("on_contact", "CONTACT"),
    ("on_tear", "CONTACT"),
    ("present", "PRESENT"),
];

/// On an `impl Behaviour for T` block: fills in `hooks()` with exactly the
/// hooks the block defines (`fixed_update` and `on_contact` give
/// `FIXED_UPDATE | CONTACT`), and `inspect()` with `T`'s
/// [`Inspect`](derive@Inspect) table unless the block writes its own.
/// (The example is text here: a proc-macro crate cannot run it, since the
/// crate it expands into depends on this one. `core/tests/derived_behaviours.rs`
/// compiles and checks this use.)
///
/// ```text
/// #[derive(Clone, Debug, stepframe_core::Inspect)]
/// struct Thruster {
///     /// Push while "right" is held.
///     #[inspect(unit = "N")]
///     force: f32,
/// }
///
/// #[stepframe_core::behaviour]
/// impl Behaviour for Thruster {
///     fn name(&self) -> &str { "Thruster" }
///     fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) { /* ... */ }
/// }
/// // hooks() == Hooks::FIXED_UPDATE: no Update, Present or contact call,
/// // timing row or breakpoint hit can come from it.
/// ```
///
/// A block that also writes `hooks()` is refused: the attribute's point is
/// that the set is read, not declared. A behaviour whose hook set changes at
/// run time (a script reloaded with other functions) leaves the attribute
/// out and writes `hooks()` by hand.
#[proc_macro_attribute]
pub fn behaviour(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return syn::Error::new(attr.span(), "`#[behaviour]` takes no arguments")
            .to_compile_error()
            .into();
    }
    let mut block = parse_macro_input!(item as ItemImpl);
    match derive_behaviour(&mut block) {
        Ok(()) => quote!(#block).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn derive_behaviour(block: &mut ItemImpl) -> syn::Result<()> {
    let is_behaviour = block
        .trait_
        .as_ref()
        .and_then(|(_, path, _)| path.segments.last())
        .is_some_and(|s| s.ident == "Behaviour");
    if !is_behaviour {
        return Err(syn::Error::new(
            block.self_ty.span(),
            "`#[behaviour]` goes on an `impl Behaviour for T` block",
        ));
    }
    let methods: Vec<(String, Span)> = block
        .items
        .iter()
        .filter_map(|item| match item {
            ImplItem::Fn(f) => Some((f.sig.ident.to_string(), f.sig.ident.span())),
            _ => None,
        })
        .collect();
    if let Some((_, span)) = methods.iter().find(|(name, _)| name == "hooks") {
        return Err(syn::Error::new(
            *span,
            "`#[behaviour]` derives `hooks()` from the hook methods this block defines: \
             remove this `hooks()`, or remove the attribute if the set changes at run time",
        ));
    }
    let defines = |name: &str| methods.iter().any(|(m, _)| m == name);
    let mut bits = Vec::new();
    for (method, bit) in HOOK_METHODS {
        if defines(method) && !bits.contains(&bit) {
            bits.push(bit);
        }
    }
    let bits = bits.iter().map(|b| format_ident!("{b}"));
    block.items.push(syn::parse_quote! {
        fn hooks(&self) -> ::stepframe_core::Hooks {
            ::stepframe_core::Hooks::NONE #(.and(::stepframe_core::Hooks::#bits))*
        }
    });
    if !defines("inspect") {
        block.items.push(syn::parse_quote! {
            fn inspect(&self, out: &mut ::stepframe_core::behaviour::Fields) {
                ::stepframe_core::behaviour::Inspect::inspect_into(self, out)
            }
        });
    }
    Ok(())
}

/// The inspector's table for a struct (one row per field, nested structs
/// as dotted paths) or an enum (its variant as text, through `Debug`).
///
/// Field attributes, `#[inspect(...)]`:
///
/// | attribute | row |
/// |---|---|
/// | `unit = "ms"` | the value's unit, shown beside it |
/// | `param` | the field is a parameter (set by the scene), not state the behaviour keeps |
/// | `params` | the field is the behaviour's parameter struct: its fields are listed at this level (`Jumper.jump_speed`, not `Jumper.params.jump_speed`) and marked as parameters |
/// | `flatten` | the same without the parameter mark |
/// | `debug` | the field's `Debug` text (a type with no `Inspect`) |
/// | `skip` | no row (a cache, a handle) |
///
/// A field's first doc line travels with its row, so the inspector can say
/// what a number means. Paths are the field names, so they stay stable while
/// the struct keeps its fields: a timeline lane can plot one by its path.
#[proc_macro_derive(Inspect, attributes(inspect))]
pub fn derive_inspect(item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as DeriveInput);
    match inspect_impl(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// How one field is shown, from its `#[inspect(...)]` attributes.
#[derive(Default)]
struct FieldAttrs {
    unit: Option<LitStr>,
    param: bool,
    params: bool,
    flatten: bool,
    debug: bool,
    skip: bool,
}

fn field_attrs(attrs: &[Attribute]) -> syn::Result<FieldAttrs> {
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("inspect")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("unit") {
                out.unit = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("param") {
                out.param = true;
            } else if meta.path.is_ident("params") {
                out.params = true;
            } else if meta.path.is_ident("flatten") {
                out.flatten = true;
            } else if meta.path.is_ident("debug") {
                out.debug = true;
            } else if meta.path.is_ident("skip") {
                out.skip = true;
            } else {
                return Err(meta.error(
                    "expected one of `unit = \"...\"`, `param`, `params`, `flatten`, `debug`, `skip`",
                ));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// The first line of a field's doc comment, trimmed ("" without one).
fn doc_line(attrs: &[Attribute]) -> String {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_string()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_default()
}

fn inspect_impl(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param
            .bounds
            .push(syn::parse_quote!(::stepframe_core::behaviour::Inspect));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let body = match &input.data {
        Data::Struct(s) => {
            let mut rows = Vec::new();
            for (i, field) in s.fields.iter().enumerate() {
                let attrs = field_attrs(&field.attrs)?;
                if attrs.skip {
                    continue;
                }
                let member = match (&field.ident, &s.fields) {
                    (Some(ident), _) => quote!(#ident),
                    (None, SynFields::Unnamed(_)) => {
                        let index = syn::Index::from(i);
                        quote!(#index)
                    }
                    (None, _) => unreachable!("unnamed fields are tuple fields"),
                };
                let label = match &field.ident {
                    Some(ident) => ident.to_string().trim_start_matches("r#").to_string(),
                    None => i.to_string(),
                };
                if attrs.params || attrs.flatten {
                    if attrs.unit.is_some() || attrs.debug {
                        return Err(syn::Error::new(
                            field.span(),
                            "a flattened field lists its own fields: give them their units",
                        ));
                    }
                    let params = attrs.params;
                    rows.push(quote! { out.flatten(#params, &self.#member); });
                    continue;
                }
                let unit = match &attrs.unit {
                    Some(u) => quote!(::core::option::Option::Some(#u)),
                    None => quote!(::core::option::Option::None),
                };
                let doc = doc_line(&field.attrs);
                let param = attrs.param;
                let meta = quote! {
                    ::stepframe_core::behaviour::FieldMeta { unit: #unit, doc: #doc, param: #param }
                };
                rows.push(if attrs.debug {
                    quote! {
                        out.nested(#label, #meta, &::stepframe_core::behaviour::DebugText(&self.#member));
                    }
                } else {
                    quote! { out.nested(#label, #meta, &self.#member); }
                });
            }
            quote! { #(#rows)* }
        }
        Data::Enum(_) => quote! {
            out.value(::stepframe_core::behaviour::FieldValue::Text(::std::format!("{:?}", self)));
        },
        Data::Union(_) => {
            return Err(syn::Error::new(
                name.span(),
                "`Inspect` cannot read a union: implement it by hand",
            ));
        }
    };
    Ok(quote! {
        impl #impl_generics ::stepframe_core::behaviour::Inspect for #name #ty_generics #where_clause {
            fn inspect_into(&self, out: &mut ::stepframe_core::behaviour::Fields) {
                #body
            }
        }
    })
}
