/**
 * The search page's one script (docs/web.md), enhancing a form that works without it:
 * - places suggested as one types in "where" (from /places, in the page's language), as the
 *   field's <datalist>;
 * - "use my location" fills "where" from the device's position;
 * - the bare home page, opened in the visitor's country, moves to the device's position when the
 *   browser already allows it (never asking: asking is the button's job).
 */
const field = document.querySelector<HTMLInputElement>('input[name="near"]');
const list = document.querySelector<HTMLDataListElement>('datalist#place-suggestions');
const button = document.querySelector<HTMLButtonElement>('button[data-near-me]');
const form = field?.form ?? null;

const point = (position: GeolocationPosition) => `${position.coords.latitude.toFixed(4)},${position.coords.longitude.toFixed(4)}`;

if (field && list && field.dataset.places) {
  const source = field.dataset.places;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = '';
  field.addEventListener('input', () => {
    clearTimeout(timer);
    const text = field.value.trim();
    if (text.length < 2 || /^[\d\s.,+-]+$/.test(text) || text === asked) return;
    timer = setTimeout(() => {
      asked = text;
      const url = `${source}${source.includes('?') ? '&' : '?'}q=${encodeURIComponent(text)}`;
      void fetch(url, { headers: { accept: 'application/json' } })
        .then((r) => (r.ok ? (r.json() as Promise<{ places: { label: string }[] }>) : { places: [] }))
        .then(({ places }) => {
          if (field.value.trim() !== text) return;
          list.replaceChildren(...places.map((p) => Object.assign(document.createElement('option'), { value: p.label })));
        })
        .catch(() => undefined);
    }, 120);
  });
}

if (button && field && 'geolocation' in navigator) {
  button.hidden = false;
  button.addEventListener('click', () => {
    button.disabled = true;
    navigator.geolocation.getCurrentPosition(
      (position) => {
        field.value = point(position);
        button.disabled = false;
        field.focus();
      },
      () => {
        button.disabled = false;
        field.focus();
      },
      { maximumAge: 600_000, timeout: 10_000 },
    );
  });
}

if (form?.dataset.startNear === 'true' && field && 'geolocation' in navigator && 'permissions' in navigator) {
  void navigator.permissions
    .query({ name: 'geolocation' })
    .then((status) => {
      if (status.state !== 'granted') return;
      navigator.geolocation.getCurrentPosition(
        (position) => {
          const lang = form.querySelector<HTMLInputElement>('input[name="lang"]')?.value;
          location.replace(`/?near=${encodeURIComponent(point(position))}${lang ? `&lang=${encodeURIComponent(lang)}` : ''}`);
        },
        () => undefined,
        { maximumAge: 600_000, timeout: 10_000 },
      );
    })
    .catch(() => undefined);
}
export {};
