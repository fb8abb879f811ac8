import { beforeEach, describe, expect, it } from 'vitest';
import { useUi } from './ui-store';

const ui = useUi.getState;

describe('dialogs the app opens on its own', () => {
  beforeEach(() => useUi.setState({ dialog: { name: 'none' }, queued: null }));

  it('an incident arriving while the player types a withdrawal waits until that dialog closes', () => {
    ui().openDialog({ name: 'take', currency: 1 });
    ui().offerDialog({ name: 'error_code', incidentId: 7 });
    expect(ui().dialog).toEqual({ name: 'take', currency: 1 });
    // The withdrawal's own follow-up (an alert) still replaces it; the incident keeps waiting.
    ui().alert('Заявка создана');
    expect(ui().dialog.name).toBe('alert');
    ui().closeDialog();
    expect(ui().dialog).toEqual({ name: 'error_code', incidentId: 7 });
    ui().closeDialog();
    expect(ui().dialog).toEqual({ name: 'none' });
  });

  it('opens at once when no dialog is open; the newest incident wins while one waits', () => {
    ui().offerDialog({ name: 'error_code', incidentId: 1 });
    expect(ui().dialog).toEqual({ name: 'error_code', incidentId: 1 });
    ui().openDialog({ name: 'vip' });
    ui().offerDialog({ name: 'error_code', incidentId: 2 });
    ui().offerDialog({ name: 'error_code', incidentId: 3 });
    ui().closeDialog();
    expect(ui().dialog).toEqual({ name: 'error_code', incidentId: 3 });
  });
});
