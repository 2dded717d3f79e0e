//! stepframe-macros: what a behaviour's code already says, derived so nobody
//! writes it twice. Use them through `stepframe-core`, which re-exports both
//! (`stepframe_core::behaviour` and `stepframe_core::Inspect`); the generated
//! code names `::stepframe_core`, so a crate using them depends on it.
//!
//! | macro | on | derives |
//! |---|---|---|
//! | [`macro@behaviour`] | an `impl Behaviour for T` block | `hooks()` from the hook methods the block defines; `name()` and `Named` from `T`'s name; `inspect()`, `hash_state()` and `adopt_params()` from what `T`'s [`Inspect`](derive@Inspect) derives |
//! | [`Inspect`](derive@Inspect) | a struct or an enum | the inspector's field table (one row per field, with a stable path, a unit and the field's doc line), `HashState` over every field, and `AdoptParams` from the fields marked as parameters |
//!
//! Why derive the hook set: a hand-written `hooks()` is a second statement
//! of a fact the methods already make, and the two drift. A set that says
//! too much puts the behaviour in hook lists it has no code for: it is
//! called, timed and hit by breakpoints there (phantom hits); one that says
//! too little silently skips a hook the behaviour does define. Reading the
//! method names cannot drift. The same holds for the name (written once,
//! in the type), the state hash (a field added later is hashed without
//! anyone remembering it) and parameter adoption (the field marked
//! `params` is the one an edit replaces).

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
/// `FIXED_UPDATE | CONTACT`), and, unless the block writes its own:
///
/// - `inspect()` with `T`'s [`Inspect`](derive@Inspect) table;
/// - `hash_state()` with `T`'s derived `HashState` (every field but those
///   marked `skip` or `skip_hash`);
/// - `adopt_params()` with `T`'s derived `AdoptParams` (the fields marked
///   `params` or `param` are taken from the fresh instance);
/// - `name()` and `impl Named for T` with `T`'s name (`"Thruster"`). A
///   `fn name` that returns a string literal names it instead; one that
///   computes its name gets no `Named` (the type is then registered by
///   name, and the registry checks the two agree).
///
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
///     fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) { /* ... */ }
/// }
/// // hooks() == Hooks::FIXED_UPDATE: no Update, Present or contact call,
/// // timing row or breakpoint hit can come from it. name() == "Thruster",
/// // the name it is registered under; hash_state() feeds `force`.
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
    let derived = derive_behaviour(&mut block)
        .and_then(|()| derive_state_methods(&mut block))
        .and_then(|()| derive_name(&mut block));
    match derived {
        Ok(named) => quote!(#block #named).into(),
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

/// Whether the `impl` block defines a method called `name`.
fn block_defines(block: &ItemImpl, name: &str) -> bool {
    block
        .items
        .iter()
        .any(|item| matches!(item, ImplItem::Fn(f) if f.sig.ident == name))
}

/// `hash_state` and `adopt_params` from what `#[derive(Inspect)]` derived
/// (`HashState`, `AdoptParams`), each unless the block writes its own.
fn derive_state_methods(block: &mut ItemImpl) -> syn::Result<()> {
    if !block_defines(block, "hash_state") {
        block.items.push(syn::parse_quote! {
            fn hash_state(&self, hasher: &mut ::stepframe_core::hash::StableHasher) {
                ::stepframe_core::behaviour::HashState::hash_into(self, hasher)
            }
        });
    }
    if !block_defines(block, "adopt_params") {
        block.items.push(syn::parse_quote! {
            fn adopt_params(&mut self, fresh: &dyn ::stepframe_core::Behaviour) -> bool {
                ::stepframe_core::behaviour::adopt_derived_params(self, fresh)
            }
        });
    }
    Ok(())
}

/// The registered name: `impl Named for T` with the type's name, or with the
/// string literal a hand-written `fn name` returns; and `fn name` from it
/// when the block has none. A `fn name` that computes its name (one type
/// registered under names chosen at run time) gets no `Named`: the type is
/// then registered by name, and the registry checks the two agree when it
/// makes one.
fn derive_name(block: &mut ItemImpl) -> syn::Result<proc_macro2::TokenStream> {
    let self_ty = &block.self_ty;
    let written = block.items.iter().find_map(|item| match item {
        ImplItem::Fn(f) if f.sig.ident == "name" => Some(f),
        _ => None,
    });
    let name = match written {
        None => {
            let type_name = match &**self_ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            }
            .ok_or_else(|| {
                syn::Error::new(
                    self_ty.span(),
                    "`#[behaviour]` names the behaviour after its type: implement it for a \
                     named type, or write `fn name`",
                )
            })?;
            LitStr::new(&type_name, Span::call_site())
        }
        Some(f) => match f.block.stmts.as_slice() {
            [
                syn::Stmt::Expr(
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                    None,
                ),
            ] => s.clone(),
            _ => return Ok(quote!()),
        },
    };
    if written.is_none() {
        block.items.push(syn::parse_quote! {
            fn name(&self) -> &str {
                <Self as ::stepframe_core::behaviour::Named>::NAME
            }
        });
    }
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::stepframe_core::behaviour::Named for #self_ty #where_clause {
            const NAME: &'static str = #name;
        }
    })
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
/// | `debug` | the field's `Debug` text (a type with no `Inspect`); hashed by that text |
/// | `skip` | no row, and not hashed: not state (a cache, a handle, scratch) |
/// | `skip_hash = "why"` | a row, but not hashed; the reason is required, for the next reader |
///
/// Every field not marked `skip` or `skip_hash` is fed to the state hash
/// (`HashState`, in declaration order; an enum feeds its variant's index
/// and fields), so its type must implement `HashState` (the derive does;
/// numbers, text, lists, `Option`, `BTreeMap`, core's geometry do). The
/// fields marked `params` or `param` are what `AdoptParams` copies from a
/// fresh instance when the parameters are edited; with none, an edit is
/// refused.
///
/// A field's first doc line travels with its row, so the inspector can say
/// what a number means. Paths are the field names, so they stay stable while
/// the struct keeps its fields: a timeline lane can plot one by its path.
#[proc_macro_derive(Inspect, attributes(inspect))]
pub fn derive_inspect(item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as DeriveInput);
    let derived = (|| {
        let table = inspect_impl(&input)?;
        let hash = hash_impl(&input)?;
        let adopt = adopt_impl(&input)?;
        Ok::<_, syn::Error>(quote! { #table #hash #adopt })
    })();
    match derived {
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
    /// `skip_hash = "why"`: shown, but left out of the state hash.
    skip_hash: Option<LitStr>,
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
            } else if meta.path.is_ident("skip_hash") {
                let why: LitStr = meta
                    .value()
                    .map_err(|_| {
                        meta.error("say why the field is left out: `skip_hash = \"why\"`")
                    })?
                    .parse()?;
                if why.value().trim().is_empty() {
                    return Err(syn::Error::new(
                        why.span(),
                        "say why the field is left out of the state hash",
                    ));
                }
                out.skip_hash = Some(why);
            } else {
                return Err(meta.error(
                    "expected one of `unit = \"...\"`, `param`, `params`, `flatten`, `debug`, \
                     `skip`, `skip_hash = \"why\"`",
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

/// A field's place in `self`: its name, or its index in a tuple struct.
fn member(field: &syn::Field, i: usize) -> proc_macro2::TokenStream {
    match &field.ident {
        Some(ident) => quote!(#ident),
        None => {
            let index = syn::Index::from(i);
            quote!(#index)
        }
    }
}

/// Whether a field is fed to the state hash: all but `skip` (not state) and
/// `skip_hash = "why"` ones.
fn hashed(attrs: &FieldAttrs) -> bool {
    !attrs.skip && attrs.skip_hash.is_none()
}

/// How one hashed value is fed: a `debug` field by its `Debug` text (its
/// type has no `HashState`), any other through its own `HashState`.
fn hash_value(attrs: &FieldAttrs, value: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    if attrs.debug {
        quote! {
            ::stepframe_core::behaviour::HashState::hash_into(
                &::stepframe_core::behaviour::DebugText(#value), hasher);
        }
    } else {
        quote! { ::stepframe_core::behaviour::HashState::hash_into(#value, hasher); }
    }
}

/// `HashState` for the type: a struct's fields in declaration order; an
/// enum's variant index, then that variant's fields.
fn hash_impl(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param
            .bounds
            .push(syn::parse_quote!(::stepframe_core::behaviour::HashState));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let body = match &input.data {
        Data::Struct(s) => {
            let mut feeds = Vec::new();
            for (i, field) in s.fields.iter().enumerate() {
                let attrs = field_attrs(&field.attrs)?;
                if hashed(&attrs) {
                    let m = member(field, i);
                    feeds.push(hash_value(&attrs, quote!(&self.#m)));
                }
            }
            quote! { #(#feeds)* }
        }
        Data::Enum(e) => {
            let mut arms = Vec::new();
            for (index, variant) in e.variants.iter().enumerate() {
                let ident = &variant.ident;
                let index = index as u64;
                let mut binds = Vec::new();
                let mut feeds = Vec::new();
                for (i, field) in variant.fields.iter().enumerate() {
                    let attrs = field_attrs(&field.attrs)?;
                    let bind = format_ident!("field_{i}");
                    let m = member(field, i);
                    binds.push(quote!(#m: #bind));
                    if hashed(&attrs) {
                        feeds.push(hash_value(&attrs, quote!(#bind)));
                    }
                }
                arms.push(quote! {
                    #[allow(unused_variables)]
                    Self::#ident { #(#binds),* } => {
                        hasher.write_u64(#index);
                        #(#feeds)*
                    }
                });
            }
            quote! {
                match self {
                    #(#arms)*
                }
            }
        }
        Data::Union(_) => {
            return Err(syn::Error::new(
                name.span(),
                "`Inspect` cannot read a union: implement it by hand",
            ));
        }
    };
    Ok(quote! {
        impl #impl_generics ::stepframe_core::behaviour::HashState for #name #ty_generics #where_clause {
            #[allow(unused_variables)]
            fn hash_into(&self, hasher: &mut ::stepframe_core::hash::StableHasher) {
                #body
            }
        }
    })
}

/// `AdoptParams` for the type: copies every field marked `params` or
/// `param` from the fresh instance; false when none is marked (an enum has
/// no marked fields).
fn adopt_impl(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    let mut copies = Vec::new();
    let mut bounds: Vec<syn::WherePredicate> = Vec::new();
    if let Data::Struct(s) = &input.data {
        for (i, field) in s.fields.iter().enumerate() {
            let attrs = field_attrs(&field.attrs)?;
            if attrs.params || attrs.param {
                let m = member(field, i);
                let ty = &field.ty;
                copies.push(quote! {
                    self.#m = ::core::clone::Clone::clone(&fresh.#m);
                });
                bounds.push(syn::parse_quote!(#ty: ::core::clone::Clone));
            }
        }
    }
    let mut generics = input.generics.clone();
    if !copies.is_empty() {
        generics.make_where_clause().predicates.extend(bounds);
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let adopted = !copies.is_empty();
    Ok(quote! {
        impl #impl_generics ::stepframe_core::behaviour::AdoptParams for #name #ty_generics #where_clause {
            #[allow(unused_variables)]
            fn adopt_params_from(&mut self, fresh: &Self) -> bool {
                #(#copies)*
                #adopted
            }
        }
    })
}
