/** Setup: the business profile, its services and its products (update_profile, upsert_service, upsert_product, archive_*). */
import { attr, html, Problem, type Html } from '@svc/shared';
import type { AppCall } from './app-kit.js';
import type { AppRoutes } from './app-routes.js';
import { KEPT, asPage, numberOf, setupPage, textOf, type SetupRenderer } from './setup-kit.js';
import { formatMoney, moneyInput, parseMoney } from './views/format.js';
import { postForm } from './views/layout.js';

/** What a customer can create (a refund opens from a cancelled paid order, so it is not offered). */
const ITEM_TYPES = ['booking', 'order', 'quote_request', 'message'] as const;
const PRICE_MODELS = ['fixed', 'from', 'quote', 'none'] as const;

interface Profile {
  name: string;
  description?: string;
  timeZone: string;
  currency: string;
  languages: string[];
  itemTypes: string[];
  address?: { streetAddress?: string; addressLocality?: string; postalCode?: string; addressCountry?: string };
  url?: string;
  email?: string;
  telephone?: string;
}

interface Service {
  id: string;
  name: string;
  description: string | null;
  durationMinutes: number;
  priceModel: string;
  price: number | null;
  priceCurrency: string;
  capacity: number;
  maxPartySize: number;
  slotStepMinutes: number;
  minNoticeMinutes: number;
  active: boolean;
}

interface Product {
  productId: string;
  sku: string | null;
  name: string;
  price: number;
  priceCurrency: string;
  category: string | null;
  inStock: boolean;
  active: boolean;
}

function field(id: string, label: string, input: Html): Html {
  return html`<div><label for="${id}">${label}</label>${input}</div>`;
}

function money(app: AppCall, form: URLSearchParams, name: string, label: string): number | null | undefined {
  const text = textOf(form, name);
  if (text === null) return undefined;
  const minor = parseMoney(text, app.profile.currency);
  if (minor === null) throw new Problem('invalid_input', `${label}: "${text}" is not an amount.`, { fields: [{ path: name, problem: 'invalid', message: 'Not an amount.' }] });
  return minor;
}

const renderProfile: SetupRenderer = async (app, problem) => {
  const { profile, version } = await app.call<{ profile: Profile; version: number }>('get_profile');
  const t = app.t.profile;
  const a = profile.address ?? {};
  const body = postForm(
    '/app/setup/profile',
    app.session.csrfToken,
    app.formKey(),
    html`<div class="card"><input type="hidden" name="expected_version" value="${version}">
${field('p-name', t.name, html`<input type="text" id="p-name" name="name" value="${profile.name}" required maxlength="200">`)}
${field('p-description', t.description, html`<textarea id="p-description" name="description" maxlength="2000">${profile.description ?? ''}</textarea>`)}
<div class="row">
${field('p-zone', t.timeZone, html`<input type="text" id="p-zone" name="timeZone" value="${profile.timeZone}" required>`)}
${field('p-currency', t.currency, html`<input type="text" id="p-currency" name="currency" value="${profile.currency}" required pattern="[A-Z]{3}" maxlength="3">`)}
</div>
${field('p-languages', t.languages, html`<input type="text" id="p-languages" name="languages" value="${profile.languages.join(', ')}" required>`)}
<fieldset><legend>${t.itemTypes}</legend>${ITEM_TYPES.map(
      (type) => html`<label class="inline"><input type="checkbox" name="itemTypes" value="${type}"${attr('checked', profile.itemTypes.includes(type) ? 'checked' : null)}> ${app.t.types[type]}</label>`,
    )}</fieldset>
<div class="row">
${field('p-url', t.url, html`<input type="url" id="p-url" name="url" value="${profile.url ?? ''}">`)}
${field('p-email', t.email, html`<input type="email" id="p-email" name="email" value="${profile.email ?? ''}">`)}
${field('p-phone', t.telephone, html`<input type="text" id="p-phone" name="telephone" value="${profile.telephone ?? ''}" maxlength="40">`)}
</div>
<div class="row">
${field('p-street', t.street, html`<input type="text" id="p-street" name="streetAddress" value="${a.streetAddress ?? ''}" maxlength="300">`)}
${field('p-locality', t.locality, html`<input type="text" id="p-locality" name="addressLocality" value="${a.addressLocality ?? ''}" maxlength="200">`)}
${field('p-postal', t.postalCode, html`<input type="text" id="p-postal" name="postalCode" value="${a.postalCode ?? ''}" maxlength="40">`)}
${field('p-country', t.country, html`<input type="text" id="p-country" name="addressCountry" value="${a.addressCountry ?? ''}" maxlength="2">`)}
</div>
<div class="actions"><button type="submit" class="primary">${app.t.setup.save}</button></div></div>`,
  );
  return setupPage(app, 'profile', problem, body);
};

const renderServices: SetupRenderer = async (app, problem) => {
  const { items } = await app.call<{ items: Service[] }>('list_all_services', { limit: 100 });
  const rows = items.map((service) => serviceForm(app, service));
  const body = html`${rows}<details class="card"><summary>${app.t.services.addTitle}</summary>${serviceForm(app, null)}</details>`;
  return setupPage(app, 'services', problem, body);
};

function serviceForm(app: AppCall, service: Service | null): Html {
  const t = app.t.services;
  const key = service?.id ?? 'new';
  const inner = html`<div class="row">
${field(`s-${key}-name`, t.name, html`<input type="text" id="s-${key}-name" name="name" value="${service?.name ?? ''}" required maxlength="200">`)}
${field(`s-${key}-duration`, t.duration, html`<input type="number" id="s-${key}-duration" name="durationMinutes" value="${service?.durationMinutes ?? 30}" min="5" max="1440" required>`)}
${field(`s-${key}-model`, t.priceModel, html`<select id="s-${key}-model" name="priceModel">${PRICE_MODELS.map(
    (model) => html`<option value="${model}"${attr('selected', (service?.priceModel ?? 'fixed') === model ? 'selected' : null)}>${t.models[model]}</option>`,
  )}</select>`)}
${field(`s-${key}-price`, `${t.price} (${app.profile.currency})`, html`<input type="text" inputmode="decimal" id="s-${key}-price" name="price" value="${moneyInput(service?.price, app.profile.currency)}">`)}
${field(`s-${key}-capacity`, t.capacity, html`<input type="number" id="s-${key}-capacity" name="capacity" value="${service?.capacity ?? 1}" min="1">`)}
${field(`s-${key}-step`, t.step, html`<input type="number" id="s-${key}-step" name="slotStepMinutes" value="${service?.slotStepMinutes ?? 15}" min="5">`)}
${field(`s-${key}-notice`, t.notice, html`<input type="number" id="s-${key}-notice" name="minNoticeMinutes" value="${service?.minNoticeMinutes ?? 60}" min="0">`)}
</div>
${field(`s-${key}-description`, t.description, html`<textarea id="s-${key}-description" name="description" maxlength="5000">${service?.description ?? ''}</textarea>`)}
${service ? html`<input type="hidden" name="id" value="${service.id}"><input type="hidden" name="maxPartySize" value="${service.maxPartySize}">` : null}
<div class="actions"><button type="submit" class="primary">${app.t.setup.save}</button></div>`;
  const form = postForm('/app/setup/services', app.session.csrfToken, app.formKey(), inner);
  if (!service) return form;
  const archive = service.active
    ? postForm('/app/setup/services/archive', app.session.csrfToken, app.formKey(), html`<input type="hidden" name="id" value="${service.id}"><button type="submit">${app.t.setup.archive}</button>`)
    : null;
  return html`<section class="card" aria-label="${service.name}"><h2>${service.name} <span class="badge${service.active ? ' accent' : ''}">${
    service.active ? app.t.setup.active : app.t.setup.archived
  }</span> <span class="muted small">${formatMoney(service.price, service.priceCurrency, app.lang)}</span></h2>${form}<div class="actions">${archive}</div></section>`;
}

const renderProducts: SetupRenderer = async (app, problem) => {
  const { items } = await app.call<{ items: Product[] }>('list_all_products', { limit: 100 });
  const t = app.t.products;
  const rows = items.map(
    (product) =>
      html`<tr><td>${product.name}</td><td><code>${product.sku ?? ''}</code></td><td>${formatMoney(product.price, product.priceCurrency, app.lang)}</td><td>${product.category ?? ''}</td><td>${
        product.inStock ? app.t.setup.yes : app.t.setup.no
      }</td><td>${product.active ? app.t.setup.active : app.t.setup.archived}</td><td>${
        product.active
          ? postForm('/app/setup/products/archive', app.session.csrfToken, app.formKey(), html`<input type="hidden" name="id" value="${product.productId}"><button type="submit">${app.t.setup.archive}</button>`)
          : null
      }</td></tr>`,
  );
  const table = html`<div class="card table-wrap"><table><thead><tr><th scope="col">${t.name}</th><th scope="col">${t.sku}</th><th scope="col">${t.price}</th><th scope="col">${t.category}</th><th scope="col">${t.inStock}</th><th scope="col"></th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const add = postForm(
    '/app/setup/products',
    app.session.csrfToken,
    app.formKey(),
    html`<div class="row">
${field('pr-name', t.name, html`<input type="text" id="pr-name" name="name" required maxlength="300">`)}
${field('pr-sku', t.sku, html`<input type="text" id="pr-sku" name="sku" maxlength="100">`)}
${field('pr-price', `${t.price} (${app.profile.currency})`, html`<input type="text" inputmode="decimal" id="pr-price" name="price" required>`)}
${field('pr-category', t.category, html`<input type="text" id="pr-category" name="category" maxlength="200">`)}
</div><label class="inline"><input type="checkbox" name="inStock" value="1" checked> ${t.inStock}</label>
<div class="actions"><button type="submit" class="primary">${app.t.setup.add}</button></div>`,
  );
  return setupPage(app, 'products', problem, html`${table}<section class="card" aria-labelledby="add-product"><h2 id="add-product">${t.addTitle}</h2>${add}</section>`);
};

export function installCataloguePages(routes: AppRoutes): void {
  routes.page('/app/setup/profile', asPage(renderProfile), KEPT);
  routes.action(
    '/app/setup/profile',
    async (app, form) => {
      const address = {
        streetAddress: textOf(form, 'streetAddress') ?? undefined,
        addressLocality: textOf(form, 'addressLocality') ?? undefined,
        postalCode: textOf(form, 'postalCode') ?? undefined,
        addressCountry: textOf(form, 'addressCountry')?.toUpperCase() ?? undefined,
      };
      const hasAddress = Object.values(address).some((value) => value !== undefined);
      await app.call('update_profile', {
        profile: {
          name: textOf(form, 'name') ?? '',
          description: textOf(form, 'description'),
          timeZone: textOf(form, 'timeZone') ?? '',
          currency: (textOf(form, 'currency') ?? '').toUpperCase(),
          languages: (textOf(form, 'languages') ?? '').split(',').map((l) => l.trim()).filter(Boolean),
          itemTypes: form.getAll('itemTypes'),
          url: textOf(form, 'url'),
          email: textOf(form, 'email'),
          telephone: textOf(form, 'telephone'),
          address: hasAddress ? address : null,
        },
        expected_version: numberOf(form, 'expected_version'),
        idempotency_key: form.get('idempotency_key'),
      });
      return '/app/setup/profile?done=saved';
    },
    asPage(renderProfile),
  );

  routes.page('/app/setup/services', asPage(renderServices), KEPT);
  routes.action(
    '/app/setup/services',
    async (app, form) => {
      const priceModel = textOf(form, 'priceModel') ?? 'fixed';
      const price = money(app, form, 'price', app.t.services.price);
      await app.call('upsert_service', {
        service: {
          id: textOf(form, 'id') ?? undefined,
          name: textOf(form, 'name') ?? '',
          description: textOf(form, 'description'),
          durationMinutes: numberOf(form, 'durationMinutes'),
          priceModel,
          price: priceModel === 'fixed' || priceModel === 'from' ? price ?? null : null,
          capacity: numberOf(form, 'capacity'),
          maxPartySize: numberOf(form, 'maxPartySize'),
          slotStepMinutes: numberOf(form, 'slotStepMinutes'),
          minNoticeMinutes: numberOf(form, 'minNoticeMinutes'),
        },
        idempotency_key: form.get('idempotency_key'),
      });
      return '/app/setup/services?done=saved';
    },
    asPage(renderServices),
  );
  routes.action(
    '/app/setup/services/archive',
    async (app, form) => {
      await app.call('archive_service', { id: textOf(form, 'id') ?? '', idempotency_key: form.get('idempotency_key') });
      return '/app/setup/services?done=saved';
    },
    asPage(renderServices),
  );

  routes.page('/app/setup/products', asPage(renderProducts), KEPT);
  routes.action(
    '/app/setup/products',
    async (app, form) => {
      await app.call('upsert_product', {
        product: {
          name: textOf(form, 'name') ?? '',
          sku: textOf(form, 'sku'),
          price: money(app, form, 'price', app.t.products.price),
          category: textOf(form, 'category'),
          inStock: form.get('inStock') === '1',
        },
        idempotency_key: form.get('idempotency_key'),
      });
      return '/app/setup/products?done=saved';
    },
    asPage(renderProducts),
  );
  routes.action(
    '/app/setup/products/archive',
    async (app, form) => {
      await app.call('archive_product', { id: textOf(form, 'id') ?? '', idempotency_key: form.get('idempotency_key') });
      return '/app/setup/products?done=saved';
    },
    asPage(renderProducts),
  );
}
