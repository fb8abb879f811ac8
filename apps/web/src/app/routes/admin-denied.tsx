import Alert from '@mui/material/Alert';

/** What a player or a visitor sees under /admin; the admin area's own code is never loaded for them. */
export default function AdminDenied() {
  return <Alert severity="warning">Этот раздел доступен только операторам сервиса.</Alert>;
}
