/**
 * The directory pages' one script (docs/web.md): a "use my location" button that fills the search
 * form's `near` field from the device's position. Without it, or without permission, the field is
 * typed by hand; nothing else needs a script.
 */
const button = document.querySelector<HTMLButtonElement>('button[data-near-me]');
const field = document.querySelector<HTMLInputElement>('input[name="near"]');
if (button && field && 'geolocation' in navigator) {
  button.hidden = false;
  button.addEventListener('click', () => {
    button.disabled = true;
    navigator.geolocation.getCurrentPosition(
      (position) => {
        field.value = `${position.coords.latitude.toFixed(4)},${position.coords.longitude.toFixed(4)}`;
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
export {};
