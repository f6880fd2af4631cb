/**
 * The demo business `npm start` makes on an empty data folder: a hair salon and shop in Lisbon with
 * services of every price model, products, opening hours in Europe/Lisbon and a closure.
 */
import { loadSettings, type DomainContext } from '../domain/context.js';
import { applySettingsWrite } from '../domain/settings/settings-document.js';
import { setClosures, setOpeningHours, updateProfile, upsertProduct, upsertService } from '../domain/catalogue/catalogue-service.js';
import { serviceInput, productInput } from '../domain/catalogue/catalogue-schemas.js';

export async function seedDemoBusiness(ctx: DomainContext): Promise<boolean> {
  if (await ctx.store.business.get()) return false;
  await ctx.store.transaction(async (store) => {
    const tx = { ...ctx, store };
    await updateProfile(
      tx,
      {
        name: 'Salão Aurora',
        description: 'Hair salon and small shop of hair-care products in Lisbon\'s Príncipe Real.',
        timeZone: 'Europe/Lisbon',
        currency: 'EUR',
        languages: ['pt-PT', 'en'],
        itemTypes: ['message', 'quote_request', 'booking', 'order'],
        address: { streetAddress: 'Rua da Escola Politécnica 42', addressLocality: 'Lisboa', postalCode: '1250-102', addressCountry: 'PT' },
        geo: { latitude: 38.7171, longitude: -9.1503 },
        telephone: '+351 213 000 000',
        categories: ['hairdresser', 'beauty'],
      },
      undefined,
    );
    const services = [
      { id: 'haircut', name: 'Haircut', description: 'Wash, cut and style.', durationMinutes: 45, priceModel: 'fixed', price: 2500, capacity: 2, maxPartySize: 1 },
      { id: 'beard-trim', name: 'Beard trim', durationMinutes: 20, priceModel: 'fixed', price: 1200, slotStepMinutes: 10 },
      { id: 'colouring', name: 'Colouring', description: 'Priced by length and product; from the price shown.', durationMinutes: 120, priceModel: 'from', price: 6000 },
      { id: 'bridal-styling', name: 'Bridal styling', description: 'On location; we quote after a short chat.', durationMinutes: 180, priceModel: 'quote', price: null },
      { id: 'consultation', name: 'Hair consultation', description: 'Free ten-minute chat.', durationMinutes: 15, priceModel: 'none', price: null, minNoticeMinutes: 0 },
    ];
    for (const service of services) await upsertService(tx, serviceInput.parse(service));
    const products = [
      { productId: 'argan-shampoo', sku: 'AUR-SH-250', name: 'Argan shampoo 250 ml', price: 1450, category: 'Hair care' },
      { productId: 'repair-mask', sku: 'AUR-MK-200', name: 'Repair mask 200 ml', price: 1890, category: 'Hair care' },
      { productId: 'sea-salt-spray', sku: 'AUR-SP-150', name: 'Sea salt spray 150 ml', price: 1290, category: 'Styling' },
      { productId: 'wooden-comb', sku: 'AUR-CB-01', name: 'Wooden comb', price: 650, category: 'Accessories' },
      { productId: 'gift-card-50', sku: 'AUR-GC-50', name: 'Gift card €50', price: 5000, category: 'Gift cards' },
    ];
    for (const product of products) await upsertProduct(tx, productInput.parse(product));
    const weekday = (day: number) => [
      { dayOfWeek: day, opens: '09:30', closes: '13:00' },
      { dayOfWeek: day, opens: '14:00', closes: '19:30' },
    ];
    await setOpeningHours(tx, [...[2, 3, 4, 5].flatMap(weekday), { dayOfWeek: 6, opens: '09:00', closes: '17:00' }]);
    await setClosures(tx, [{ startDate: '2026-12-24', endDate: '2026-12-26', reason: 'Christmas' }]);
  });
  return true;
}

/** The demo owner's address: the owner's notices of the demo go there (into the development sink unless SMTP is set). */
export const DEMO_OWNER_EMAIL = 'dono@salao-aurora.example';

/**
 * Gives the demo business an owner's address, so a newcomer sees the owner's notices arrive (docs/mail.md).
 * Only `npm start`'s first start does this; tests set what they need themselves.
 */
export async function seedDemoOwnerAddress(ctx: DomainContext): Promise<void> {
  const current = await loadSettings(ctx.store);
  const next = applySettingsWrite(current.stored, { notifications: { ownerEmail: DEMO_OWNER_EMAIL } });
  await ctx.store.settings.put(next, current.version === 0 ? null : current.version, ctx.clock.now());
}
